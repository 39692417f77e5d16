#pragma once
// Rows of a plan report repeated node after node, folded into one row each: where GPU 0 of every
// node holds other ranks' shares, a report's rows alternate between a node's GPU 0 and its
// other GPUs, and a job of 62,500 nodes would print 125,000 of them. A block of rows that lies
// in one node and repeats, shifted by a node's GPUs each time, on the nodes that follow is
// printed once with the nodes it holds for ("local ranks 1-15 of nodes 1-62499").

#include <cstddef>
#include <span>
#include <vector>

namespace vramscope::report {

/// A block is folded when it repeats on at least this many nodes in a row: a block of one or
/// two nodes is listed as before, each rank and GPU with its own number.
inline constexpr int fold_min_nodes = 3;

/// The most rows a node's block may have.
inline constexpr std::size_t fold_max_rows = 8;

/// A report row after folding: `row` as the first node has it, repeated on `nodes` nodes in a
/// row (1: not folded), each `period` ranks after the one before.
template <typename Row>
struct folded_row {
  Row row;
  int nodes = 1;
};

/// Folds `rows` (in rank order, each with `first` and `last`, a run of ranks or GPUs) by node:
/// rows i..i+K-1 that lie in one node of `period` ranks, followed by copies of them each
/// `period` ranks further whose rows `same(a, b)` finds alike, on at least fold_min_nodes nodes
/// that `together(first, last)` allows in one row (a pipeline stage's), become K folded rows.
/// Every other row is kept as it is (nodes 1). The cost is linear in the number of rows.
template <typename Row, typename Same, typename Together>
std::vector<folded_row<Row>> fold_by_node(const std::vector<Row>& rows, int period, Same same,
                                          Together together) {
  std::vector<folded_row<Row>> out;
  const std::size_t n = rows.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t best_k = 0;
    int best_copies = 0;
    for (std::size_t k = 1; period > 0 && k <= fold_max_rows && i + 2 * k <= n; ++k) {
      if (rows[i].first / period != rows[i + k - 1].last / period) break;  // not in one node
      int copies = 1;
      for (std::size_t at = i + k; at + k <= n; at += k) {
        const long long shift = static_cast<long long>(copies) * period;
        bool alike = true;
        for (std::size_t t = 0; t < k && alike; ++t) {
          const auto& a = rows[i + t];
          const auto& b = rows[at + t];
          alike = b.first == a.first + shift && b.last == a.last + shift && same(a, b);
        }
        if (!alike || !together(rows[i].first, rows[at + k - 1].last)) break;
        ++copies;
      }
      if (copies >= fold_min_nodes) {
        best_k = k;
        best_copies = copies;
        break;
      }
    }
    if (best_k == 0) {
      out.push_back({rows[i], 1});
      ++i;
      continue;
    }
    for (std::size_t t = 0; t < best_k; ++t) out.push_back({rows[i + t], best_copies});
    i += best_k * static_cast<std::size_t>(best_copies);
  }
  return out;
}

/// Feeds a node's block of runs (predict::for_each_rank_block) to a report's row builder:
/// `feed(run)` for every run of its `times` copies in order, each copy's runs `period` ranks
/// after the last's, as a walk of every run would, and with the same rows. Once two copies in a
/// row have left the same rows, each `period` after the last's (`same(a, b)`: rows a report
/// prints alike), and the row open before each was left as it was (or both copies only
/// lengthened the open row by `period`), every later copy would leave the same again: those
/// rows are added without feeding their runs. `rows` is the builder's vector, to which feed
/// adds rows or lengthens the last.
template <typename Row, typename Run, typename Feed, typename Same>
void feed_block(std::vector<Row>& rows, std::span<const Run> runs, int period, int times,
                Feed&& feed, Same&& same) {
  struct mark {
    std::size_t rows = 0;  // rows before the copy
    long long open_last = -1;  // the last rank of the row open before it (-1: none)
  };
  const auto open_last = [&]() -> long long { return rows.empty() ? -1 : rows.back().last; };
  std::vector<mark> marks;
  for (int j = 0; j < times; ++j) {
    if (j >= 2) {
      // Copies j-2 and j-1: the same rows, each `period` after, and the open rows alike.
      const auto& a = marks[static_cast<std::size_t>(j - 2)];
      const auto& b = marks[static_cast<std::size_t>(j - 1)];
      const std::size_t k = b.rows - a.rows;
      bool stable = rows.size() - b.rows == k;
      if (stable && k == 0)  // both only lengthened the open row, by a period each
        stable = b.open_last - a.open_last == period && open_last() - b.open_last == period;
      if (stable && k > 0) {
        // The rows open before each copy kept their ends.
        stable = a.rows > 0 && rows[a.rows - 1].last == a.open_last &&
                 rows[b.rows - 1].last == b.open_last;
        for (std::size_t t = 0; stable && t < k; ++t) {
          const auto& x = rows[a.rows + t];
          const auto& y = rows[b.rows + t];
          stable = y.first == x.first + period && y.last == x.last + period && same(x, y);
        }
      }
      if (stable) {
        const int left = times - j;
        if (k == 0) {
          rows.back().last += left * period;
          return;
        }
        for (int c = 1; c <= left; ++c)
          for (std::size_t t = 0; t < k; ++t) {
            Row y = rows[b.rows + t];
            y.first += c * period;
            y.last += c * period;
            rows.push_back(y);
          }
        return;
      }
    }
    marks.push_back({rows.size(), open_last()});
    for (const auto& run : runs) {
      Run moved = run;
      moved.first += j * period;
      feed(moved);
    }
  }
}

}  // namespace vramscope::report
