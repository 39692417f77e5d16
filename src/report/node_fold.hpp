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

/// Rows rows[begin .. begin + k) of a report's row builder repeated `extra` more times after
/// themselves, each copy `period` ranks after the one before, before rows[begin + k]: the copies
/// feed_block found but did not add.
struct row_repeat {
  std::size_t begin = 0, k = 0;
  int extra = 0;
};

/// A builder's rows with their repeats (row_repeat) read as the rows they stand for.
template <typename Row>
class repeated_rows {
 public:
  repeated_rows(const std::vector<Row>& rows, std::span<const row_repeat> repeats, int period)
      : rows_(rows), period_(period) {
    std::size_t real = 0, at = 0;
    const auto add = [&](std::size_t begin, std::size_t len, std::size_t copies) {
      if (len == 0) return;
      chunks_.push_back({at, begin, len, copies});
      at += len * copies;
    };
    for (const auto& r : repeats) {
      add(real, r.begin - real, 1);
      add(r.begin, r.k, 1 + static_cast<std::size_t>(r.extra));
      real = r.begin + r.k;
    }
    add(real, rows.size() - real, 1);
    size_ = at;
  }

  [[nodiscard]] std::size_t size() const { return size_; }

  [[nodiscard]] Row at(std::size_t v) const {
    const auto& c = chunk_of(v);
    const std::size_t offset = v - c.at;
    Row row = rows_[c.real + offset % c.len];
    const int shift = static_cast<int>(offset / c.len) * period_;
    row.first += shift;
    row.last += shift;
    return row;
  }

  /// Where the copies of k rows that begin at `v` repeat to, when `v` begins a copy of a
  /// repeated chunk of k rows that follows another one of its copies: the end of the chunk's
  /// copies; `v` otherwise.
  [[nodiscard]] std::size_t repeats_to(std::size_t v, std::size_t k) const {
    const auto& c = chunk_of(v);
    if (c.copies < 2 || c.len != k || (v - c.at) % k != 0 || v < c.at + k) return v;
    return c.at + c.len * c.copies;
  }

 private:
  struct chunk {
    std::size_t at, real, len, copies;  // rows at .. at + len * copies: rows_[real .. + len)
  };
  const chunk& chunk_of(std::size_t v) const {
    std::size_t lo = 0, hi = chunks_.size();
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (chunks_[mid].at <= v) lo = mid;
      else hi = mid;
    }
    return chunks_[lo];
  }
  const std::vector<Row>& rows_;
  int period_;
  std::vector<chunk> chunks_;
  std::size_t size_ = 0;
};

/// Folds `rows` (in rank order, each with `first` and `last`, a run of ranks or GPUs; with the
/// copies `repeats` stand for, in their places) by node: rows i..i+K-1 that lie in one node of
/// `period` ranks, followed by copies of them each `period` ranks further whose rows
/// `same(a, b)` finds alike, on at least fold_min_nodes nodes that `together(first, last)`
/// allows in one row (a pipeline stage's; allowing a span, it allows every shorter one from
/// the same first), become K folded rows. Every other row is kept as it is (nodes 1). The cost
/// follows the rows and repeats, not the copies they stand for.
template <typename Row, typename Same, typename Together>
std::vector<folded_row<Row>> fold_by_node(const std::vector<Row>& rows,
                                          std::span<const row_repeat> repeats, int period,
                                          Same same, Together together) {
  std::vector<folded_row<Row>> out;
  const repeated_rows<Row> view(rows, repeats, period);
  const std::size_t n = view.size();
  std::vector<Row> block;
  std::size_t i = 0;
  while (i < n) {
    std::size_t best_k = 0;
    int best_copies = 0;
    block.clear();
    for (std::size_t k = 1; period > 0 && k <= fold_max_rows && i + 2 * k <= n; ++k) {
      block.push_back(view.at(i + k - 1));
      if (block.front().first / period != block.back().last / period) break;  // not one node
      int copies = 1;
      for (std::size_t at = i + k; at + k <= n;) {
        const long long shift = static_cast<long long>(copies) * period;
        bool alike = true;
        for (std::size_t t = 0; t < k && alike; ++t) {
          const auto& a = block[t];
          const auto b = view.at(at + t);
          alike = b.first == a.first + shift && b.last == a.last + shift && same(a, b);
        }
        if (!alike || !together(block.front().first, view.at(at + k - 1).last)) break;
        ++copies;
        at += k;
        // The copies of a repeat that follow one found alike are alike too.
        const std::size_t end = at + k <= n ? view.repeats_to(at, k) : at;
        if (end > at && together(block.front().first, view.at(end - 1).last)) {
          copies += static_cast<int>((end - at) / k);
          at = end;
        }
      }
      if (copies >= fold_min_nodes) {
        best_k = k;
        best_copies = copies;
        break;
      }
    }
    if (best_k == 0) {
      out.push_back({view.at(i), 1});
      ++i;
      continue;
    }
    for (std::size_t t = 0; t < best_k; ++t) out.push_back({block[t], best_copies});
    i += best_k * static_cast<std::size_t>(best_copies);
  }
  return out;
}

/// fold_by_node of rows without repeats.
template <typename Row, typename Same, typename Together>
std::vector<folded_row<Row>> fold_by_node(const std::vector<Row>& rows, int period, Same same,
                                          Together together) {
  return fold_by_node(rows, std::span<const row_repeat>(), period, same, together);
}

/// Feeds a node's block of runs (predict::for_each_rank_block) to a report's row builder:
/// `feed(run)` for every run of its `times` copies in order, each copy's runs `period` ranks
/// after the last's, as a walk of every run would, and with the same rows. Once two copies in a
/// row have left the same rows, each `period` after the last's (`same(a, b)`: rows a report
/// prints alike), and the row open before each was left as it was (or both copies only
/// lengthened the open row by `period`), every later copy would leave the same again: those
/// rows are not fed, and stand in `repeats` (row_repeat; the last copy's are added to `rows`).
/// `rows` is the builder's vector, to which feed adds rows or lengthens the last; fold_by_node
/// reads both.
template <typename Row, typename Run, typename Feed, typename Same>
void feed_block(std::vector<Row>& rows, std::vector<row_repeat>& repeats,
                std::span<const Run> runs, int period, int times, Feed&& feed, Same&& same) {
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
        // Copies j .. times - 2 stand in `repeats`; the last is added, the row a later run
        // may lengthen.
        if (left > 1) repeats.push_back({b.rows, k, left - 1});
        for (std::size_t t = 0; t < k; ++t) {
          Row y = rows[b.rows + t];
          y.first += left * period;
          y.last += left * period;
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
