// The model Megatron-LM's pretrain_gpt.py builds (megatron/core/models/gpt/gpt_model.py with
// the layers of gpt_layer_specs.py), written as the config.json keys of the Hugging Face family
// that holds the same tensors:
//   learned absolute positions, GELU MLP   -> gpt2 (wte, wpe, fused qkv, LayerNorm, biases)
//   rotary positions, GELU MLP             -> gpt_neox with a sequential residual
//   --swiglu                               -> llama; with --num-experts, mixtral; with shared
//                                             experts (--moe-shared-expert-intermediate-size)
//                                             qwen2_moe, with dense layers among the experts'
//                                             (--moe-layer-freq) but no shared expert qwen3_moe
//   --multi-latent-attention               -> deepseek_v3 (latent attention; with experts, the
//                                             shared ones and the first layers dense)
// Defaults are Megatron's (megatron/training/arguments.py, validate_args): --ffn-hidden-size
// 4 x hidden, or int(4 x hidden x 2/3 / 64) x 64 with --swiglu; --kv-channels hidden / heads;
// embeddings tied unless --untie-embeddings-and-output-weights; linear biases unless
// --disable-bias-linear; the vocabulary padded to a multiple of --make-vocab-size-divisible-by
// (128) x tp (megatron/core/tokenizers/utils/build_tokenizer.py, vocab_size_with_padding).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include "import/megatron/megatron_args.hpp"

namespace vramscope::job::detail {

namespace {

// The arguments that shape the model, read with Megatron's defaults.
struct megatron_shape {
  long long layers = 0, hidden = 0, heads = 0, ffn = 0, kv_channels = 0, groups = 0;
  long long positions = 0, vocab = 0, experts = 0, topk = 2, moe_ffn = 0, shared = 0;
  std::vector<long long> dense_layers;  // layers without experts (--moe-layer-freq)
  long long moe_freq = 1;                // --moe-layer-freq as an integer (1 for a pattern)
  // Megatron-DeepSpeed's DeepSpeed-MoE (experts, and --deepspeed or --expert-interval): its
  // expert interval, gate and MLP type apply.
  bool deepspeed_moe = false;
  // --multi-latent-attention and its shapes (Megatron's defaults: no query bottleneck, a
  // key/value latent of 32, query/key heads of 128 + 64 rotary, value heads of 128)
  bool mla = false;
  long long q_lora_rank = 0, kv_lora_rank = 32;
  long long qk_head_dim = 128, qk_pos_dim = 64, v_head_dim = 128;
  double hidden_dropout = 0.1;
  // --attention-dropout (Megatron's default 0.1): dropped probabilities where the attention is
  // unfused (local, unfused), nothing inside a flash or cuDNN kernel
  double attention_dropout = 0.1;
  std::string position_type, norm;
  bool swiglu = false, tied = true, bias = true, qkv_bias = false;
  // The vocabulary is only in the tokenizer's files: where and why, for the plan to refuse
  // there (job::model_key::unknown) while the import keeps the rest of the file.
  std::optional<diagnostic> vocab_unknown;
};

// GPT2BPETokenizer (named, or pretrain_gpt.py's default since 152aab30, 2021-01) builds GPT-2's
// byte-level BPE from --vocab-file and --merge-file, and its vocabulary is as long as the
// vocabulary file (megatron/training/tokenizer/gpt2_tokenization.py, GPT2Tokenizer: len(encoder)):
// 50,257 with GPT-2's gpt2-vocab.json. Files whose path names another model family's tokenizer
// (GPT-NeoX's vocab.json has 50,277 entries) give another size, which is in the file only.
maybe_error other_bpe_files(const import_context& ctx) {
  static const char* const families[] = {
      "neox",      "pythia", "llama",    "mistral", "mixtral", "qwen",    "bloom",
      "falcon",    "gemma",  "deepseek", "baichuan", "chatglm", "roberta", "starcoder"};
  for (const char* flag : {"--vocab-file", "--merge-file"}) {
    const entry* e = ctx.find(flag);
    if (e == nullptr) continue;
    const std::string path = lower_case(e->value.text);
    if (path.find("gpt2") != std::string::npos || path.find('$') != std::string::npos) continue;
    for (const char* family : families)
      if (path.find(family) != std::string::npos)
        return at(e->where,
                  fmt::format("{} {}: GPT2BPETokenizer (pretrain_gpt.py's default without "
                              "--tokenizer-type) reads its vocabulary from this file, which is "
                              "{}'s tokenizer, not GPT-2's 50,257 tokens, and its size is in the "
                              "file only; add --padded-vocab-size N (the file's tokens padded "
                              "to --make-vocab-size-divisible-by x tensor parallel size; newer "
                              "Megatron-LM's argument, which vramscope reads for any release) "
                              "to plan it",
                              flag, e->value.text, family));
  }
  return std::nullopt;
}

// The NullTokenizer's vocabulary for --vocab-size N. From its start (2e9a3fbc, 2023-04) to
// core_v0.17 it added an end-of-document token after the N ids: vocab_size N + 1, EOD N (legacy
// megatron/training/tokenizer/tokenizer.py _NullTokenizer; megatron/core/tokenizers/text/
// libraries/null_tokenizer.py until c9dfe347, 2026-04-22). Since c9dfe347 (core_v0.18) the EOD is
// within the N ids (vocab_size N, EOD N - 1). A launch's text rarely dates it (the examples that
// pass NullTokenizer read the same in 2025 and at d98e8a6), so it is read as the release this
// importer's flags are pinned to (d98e8a6, docs/importers.md) reads it, N, noted with the older
// reading; --null-tokenizer-eod-id / --null-tokenizer-pad-id, which exist from c9dfe347, confirm
// it.
long long null_tokenizer_vocab(import_context& ctx, const entry& size, long long n) {
  const entry* newer = ctx.find("--null-tokenizer-eod-id");
  if (newer == nullptr) newer = ctx.find("--null-tokenizer-pad-id");
  if (newer != nullptr) {
    ctx.note(size, fmt::format("NullTokenizer --vocab-size {}: {} exists from Megatron-LM "
                               "core_v0.18 (c9dfe347), whose NullTokenizer counts the "
                               "end-of-document token within the {} ids",
                               n, newer->key, n));
    return n;
  }
  ctx.note(size, fmt::format("NullTokenizer --vocab-size {}: Megatron-LM core_v0.18 and later "
                             "(c9dfe347, 2026-04-22) count the end-of-document token within the "
                             "{} ids, as planned; up to core_v0.17 it added one after them, {} "
                             "ids before padding",
                             n, n, n + 1));
  return n;
}

// A BPE vocabulary file whose path names its size beside the word tokenizer, vocab or bpe
// ("nordic_tokenizer_131072/vocab.json", "bpe-32768/vocab.json"), as users name the tokenizers
// they train: the size is that number (GPT2BPETokenizer counts the file's entries). Numbers
// below 1,000 are not sizes (versions, years in two digits).
std::optional<std::pair<const entry*, long long>> sized_vocabulary_file(const import_context& ctx) {
  const entry* e = ctx.find("--vocab-file");
  if (e == nullptr || e->value.text.find('$') != std::string::npos ||
      lower_case(e->value.text).find("gpt2") != std::string::npos)
    return std::nullopt;
  const auto words = name_words(e->value.text);
  const auto is_size = [](const std::string& w) {
    return w.size() >= 4 && w.size() <= 7 &&
           std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const auto names_vocabulary = [](const std::string& w) {
    return w == "tokenizer" || w == "vocab" || w == "bpe" || w == "tok";
  };
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (!is_size(words[i])) continue;
    const bool beside = (i > 0 && names_vocabulary(words[i - 1])) ||
                        (i + 1 < words.size() && names_vocabulary(words[i + 1]));
    if (beside) return std::pair{e, std::stoll(words[i])};
  }
  return std::nullopt;
}

// A tokenizer file (or Hugging Face model folder or Hub id) whose path names the model family
// it belongs to, and the size of that family's vocabulary as the tokenizer type counts it. The
// families' own files:
//   LLaMA 1 and Llama 2: a SentencePiece model of 32,000 pieces (meta-llama/Llama-2-7b-hf
//     tokenizer.model; the Hugging Face tokenizer has the same 32,000 entries);
//   Llama 3: a tiktoken BPE of 128,000 ranks and 256 reserved special tokens, 128,256
//     (meta-llama/llama3 llama/tokenizer.py, num_reserved_special_tokens = 256), which
//     Megatron's Llama3Tokenizer counts whole, as Megatron-LM's HuggingFaceTokenizer does
//     (len(tokenizer): megatron/training/tokenizer/tokenizer.py 2025,
//     core/tokenizers/text/libraries/huggingface_tokenizer.py 2026); Megatron-DeepSpeed's
//     HFTokenizer counts the Hugging Face tokenizer's vocab_size, the 128,000 without the special
//     tokens (microsoft/Megatron-DeepSpeed megatron/tokenizer/tokenizer.py, _HFTokenizer);
//   BLOOM: a byte-level BPE of 250,680 entries (bigscience/bloom tokenizer.json);
//   GPT-2: 50,257 (gpt2-vocab.json; the Hub's gpt2 / openai-community/gpt2);
//   Mistral 7B (v0.1, v0.2) and Mixtral 8x7B: a SentencePiece model of 32,000 pieces, none added
//     (mistralai/Mistral-7B-v0.1 tokenizer.model and tokenizer.json); v0.3 grew it to 32,768;
//   StarCoder and StarCoder2: a byte-level BPE of 49,152 entries (bigcode/starcoderbase and
//     bigcode/starcoder2-15b tokenizer.json, vocab_size 49152), which the BigCode fork's
//     TokenizerFromFile (--tokenizer-file) counts whole, as a Hugging Face tokenizer.
// BigScience's PretrainedFromHF (_AutoTokenizer, bigscience-workshop/Megatron-DeepSpeed
// megatron/tokenizer/tokenizer.py) counts len(tokenizer), the special tokens included.
// Megatron's Llama2Tokenizer and GPTSentencePieceTokenizer count the SentencePiece model's
// pieces (sp_model.vocab_size()); its Hugging Face types (HuggingFaceTokenizer, Megatron-
// DeepSpeed's HFTokenizer and PretrainedFromHF) the Hugging Face tokenizer's entries.
// SentencePieceTokenizer adds special tokens of its own and TikTokenizer its
// --tiktoken-num-special-tokens, so neither is read here. 0 when the path names no family.
long long named_tokenizer_vocab(const std::string& tokenizer, const std::string& path) {
  if (path.empty() || path.find('$') != std::string::npos) return 0;
  const auto words = name_words(path);
  enum class family { none, llama2, llama3, bloom, gpt2, starcoder, mistral } named = family::none;
  for (std::size_t i = 0; i < words.size() && named == family::none; ++i) {
    const std::string& w = words[i];
    const std::string next = i + 1 < words.size() ? words[i + 1] : "";
    const bool size_word =
        next.size() >= 2 && next.back() == 'b' &&
        std::all_of(next.begin(), next.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
    // "llama31-8b", "llama3.2": the release's digits run on after the family's.
    if (w.starts_with("llama2") || (w == "llama" && (next == "2" || size_word)))
      named = family::llama2;
    else if (w.starts_with("llama3") || (w == "llama" && next == "3"))
      named = family::llama3;
    else if (w == "bloom" || w == "bloomz")
      named = family::bloom;
    else if (w == "starcoder" || w == "starcoderbase" || w == "starcoder2")
      named = family::starcoder;
    // Mistral 7B v0.1 / v0.2 and Mixtral 8x7B: 32,000; v0.3's vocabulary (32,768) is named by
    // its version, which is then left to --vocab-size.
    else if ((w == "mistral" && size_word && next == "7b") || (w == "mixtral" && next == "8x7b"))
      named = path.find("v0.3") == std::string::npos && path.find("v0_3") == std::string::npos &&
                      path.find("v03") == std::string::npos
                  ? family::mistral
                  : family::none;
  }
  // GPT-2 by the folder's (or Hub id's) own name, "gpt2", "GPT2", "gpt2-medium": its sizes share
  // one tokenizer. A word "gpt2" elsewhere in a path names no tokenizer (gpt2-vocab.json sits
  // beside other models' files).
  const std::string last = path.substr(path.find_last_of('/', path.size() - 2) + 1);
  if (named == family::none && last.find('.') == std::string::npos)
    if (const auto own = name_words(last); !own.empty() && own.front() == "gpt2")
      named = family::gpt2;
  const bool pieces = tokenizer == "Llama2Tokenizer" || tokenizer == "GPTSentencePieceTokenizer";
  const bool hugging_face =
      tokenizer == "HuggingFaceTokenizer" || tokenizer == "HFTokenizer" ||
      tokenizer == "PretrainedFromHF" || tokenizer == "HFPretrainedTokenizer" ||
      tokenizer == "HuggingFacePretrainedTokenizer" || tokenizer == "TokenizerFromFile";
  switch (named) {
    case family::llama2:
      return pieces || hugging_face ? 32000 : 0;
    case family::llama3:
      if (tokenizer == "HFTokenizer") return 128000;
      return tokenizer == "Llama3Tokenizer" || tokenizer == "HuggingFaceTokenizer" ||
                     tokenizer == "HFPretrainedTokenizer" || tokenizer == "PretrainedFromHF" ||
                     tokenizer == "HuggingFacePretrainedTokenizer"
                 ? 128256
                 : 0;
    case family::bloom:
      return hugging_face ? 250680 : 0;
    case family::gpt2:
      return hugging_face ? 50257 : 0;
    case family::starcoder:
      return hugging_face ? 49152 : 0;
    case family::mistral:
      return pieces || hugging_face ? 32000 : 0;
    case family::none:
      return 0;
  }
  return 0;
}

// A flag's first value: a path flag followed by a word the script leaves unset (`--tokenizer-model
// $P $MOE_ARGS`) reads its path alone.
std::string first_value(const raw_value& v) {
  if (v.is_list && !v.items.empty()) return v.items.front();
  return v.text.substr(0, v.text.find(' '));
}

// The argument that names the tokenizer's files: --tokenizer-model (Megatron-LM), or Megatron-
// DeepSpeed's --tokenizer-name-or-path for its Hugging Face types.
const entry* named_tokenizer_file(const import_context& ctx) {
  // (--hf_tokenizer_path: the LUMI fork's HFPretrainedTokenizer, rakseli/Megatron-LM-lumi;
  // --tokenizer-file: the BigCode fork's TokenizerFromFile, bigcode-project/Megatron-LM.)
  for (const char* flag :
       {"--tokenizer-model", "--tokenizer-name-or-path", "--hf_tokenizer_path", "--tokenizer-file"})
    if (const entry* e = ctx.find(flag)) return e;
  return nullptr;
}

// Tokenizers whose vocabulary vramscope knows without reading files: GPT-2's BPE vocabulary
// (gpt2-vocab.json, 50257 entries); NullTokenizer and TikTokenizer take --vocab-size
// (build_tokenizer.py). The others read their vocabulary from --tokenizer-model / --vocab-file.
maybe_error read_vocab(import_context& ctx, megatron_shape& s, long long tp,
                       maybe_error& error) {
  const std::string tokenizer = flag_text(ctx, "--tokenizer-type", "");
  const entry* size = ctx.find("--vocab-size");
  long long vocab = 0;
  // Megatron-DeepSpeed's --pad-vocab-size-to N: the embedding has exactly N rows, whatever the
  // tokenizer (bigscience-workshop/Megatron-DeepSpeed, megatron/tokenizer/tokenizer.py,
  // _vocab_size_with_padding).
  if (ctx.find("--pad-vocab-size-to") != nullptr) {
    s.vocab = flag_int(ctx, "--pad-vocab-size-to", 0, 1, error);
    return std::nullopt;
  }
  // Megatron-LM's --padded-vocab-size N (TokenizerConfig.padded_vocab_size, an argument generated
  // from the dataclass): build_tokenizer's _set_padded_vocab_size pads only when it is None, so
  // the embedding and output layer have N rows whatever the tokenizer
  // (megatron/core/tokenizers/utils/build_tokenizer.py at d98e8a64dd).
  if (ctx.find("--padded-vocab-size") != nullptr) {
    s.vocab = flag_int(ctx, "--padded-vocab-size", 0, 1, error);
    return std::nullopt;
  }
  if (tokenizer == "GPT2BPETokenizer") {
    if (auto err = other_bpe_files(ctx)) return err;
    vocab = 50257;
    if (const auto sized = sized_vocabulary_file(ctx)) {
      vocab = sized->second;
      ctx.note(*sized->first,
               fmt::format("{} {}: a tokenizer named for its size, {} entries, not GPT-2's 50,257 "
                           "(give --padded-vocab-size N, the padded size, if it holds another "
                           "number)",
                           sized->first->key, sized->first->value.text, vocab));
    }
  } else if (size != nullptr) {
    vocab = flag_int(ctx, "--vocab-size", 0, 1, error);
    if (tokenizer == "NullTokenizer" && !error) vocab = null_tokenizer_vocab(ctx, *size, vocab);
  } else if (const entry* file = named_tokenizer_file(ctx);
             file != nullptr &&
             (vocab = named_tokenizer_vocab(tokenizer, first_value(file->value))) > 0) {
    ctx.note(*file,
             fmt::format("--tokenizer-type {} with {}: that family's tokenizer, {} entries "
                         "before Megatron pads them (vramscope knows the families' own files; "
                         "give --vocab-size N for another one)",
                         tokenizer, first_value(file->value), vocab));
  } else {
    const entry* where = ctx.find("--tokenizer-type");
    if (where == nullptr) where = ctx.find("--num-layers");  // the model's arguments
    const diagnostic d = where != nullptr ? where->where : diagnostic{ctx.source, 0, 0, "", ""};
    s.vocab_unknown =
        at(d, tokenizer.empty()
                  ? "the arguments give neither --tokenizer-type nor --vocab-size: add "
                    "--vocab-size N (the tokenizer's vocabulary before Megatron pads it)"
                  : fmt::format("--tokenizer-type {}: its vocabulary size is in the tokenizer's "
                                "files, which vramscope does not read; add --vocab-size N (the "
                                "vocabulary before Megatron pads it)",
                                tokenizer));
    return std::nullopt;
  }
  const long long divisible = flag_int(ctx, "--make-vocab-size-divisible-by", 128, 1, error);
  const long long multiple = divisible * tp;
  s.vocab = multiple > 0 ? (vocab + multiple - 1) / multiple * multiple : vocab;
  return std::nullopt;
}

// --moe-layer-freq's list pattern: the Python expression Megatron evaluates after allowing only
// digits, commas, brackets, parentheses, + and * (arguments.py, _eval_pattern), such as
// "([0]*3+[1]*58)". Integers and lists; + joins lists or adds integers, * repeats a list or
// multiplies integers.
class pattern_parser {
 public:
  using value = std::variant<long long, std::vector<long long>>;
  explicit pattern_parser(std::string text) : text_(std::move(text)) {}

  // The layer pattern, or an empty optional with why() set.
  std::optional<std::vector<long long>> parse() {
    auto v = sum();
    skip();
    if (!v || pos_ != text_.size())
      return fail("expected a list expression such as ([0]*3+[1]*58)");
    if (const auto* list = std::get_if<std::vector<long long>>(&*v)) return *list;
    return fail("the expression is a number, not a list of layers");
  }
  const std::string& why() const { return why_; }

 private:
  std::optional<std::vector<long long>> fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return std::nullopt;
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  std::optional<value> sum() {
    auto left = product();
    while (left && eat('+')) {
      auto right = product();
      if (!right) return std::nullopt;
      auto* a = std::get_if<std::vector<long long>>(&*left);
      auto* b = std::get_if<std::vector<long long>>(&*right);
      if (a && b) {
        if (a->size() + b->size() > max_entries)
          return fail("the pattern is longer than any model"), std::nullopt;
        a->insert(a->end(), b->begin(), b->end());
      } else if (!a && !b) {
        long long sum = 0;
        if (__builtin_add_overflow(std::get<long long>(*left), std::get<long long>(*right), &sum))
          return fail("a number too large"), std::nullopt;
        left = sum;
      } else {
        return fail("+ joins two lists or adds two numbers"), std::nullopt;
      }
    }
    return left;
  }
  std::optional<value> product() {
    auto left = atom();
    while (left && eat('*')) {
      auto right = atom();
      if (!right) return std::nullopt;
      const auto* a = std::get_if<std::vector<long long>>(&*left);
      const auto* b = std::get_if<std::vector<long long>>(&*right);
      if (a && b) return fail("* repeats a list a number of times"), std::nullopt;
      if (!a && !b) {
        long long product = 0;
        if (__builtin_mul_overflow(std::get<long long>(*left), std::get<long long>(*right),
                                   &product))
          return fail("a number too large"), std::nullopt;
        left = product;
        continue;
      }
      const auto& list = a ? *a : *b;
      const long long times = a ? std::get<long long>(*right) : std::get<long long>(*left);
      if (times < 0 ||
          (!list.empty() && static_cast<std::uint64_t>(times) > max_entries / list.size()))
        return fail("the pattern is longer than any model"), std::nullopt;
      std::vector<long long> out;
      for (long long t = 0; t < times; ++t) out.insert(out.end(), list.begin(), list.end());
      left = std::move(out);
    }
    return left;
  }
  std::optional<value> atom() {
    skip();
    // Nesting deeper than any pattern needs is refused before it can exhaust the stack.
    if (depth_ >= max_depth) return fail("nested more than 64 deep"), std::nullopt;
    if (eat('(')) {
      ++depth_;
      auto v = sum();
      --depth_;
      if (!v || !eat(')')) return fail("a ( without its )"), std::nullopt;
      return v;
    }
    if (eat('[')) {
      ++depth_;
      struct leave {
        int& d;
        ~leave() { --d; }
      } on_exit{depth_};
      std::vector<long long> list;
      if (eat(']')) return value(list);
      do {
        auto item = sum();
        if (!item) return std::nullopt;
        const auto* n = std::get_if<long long>(&*item);
        if (n == nullptr) return fail("a layer's entry is 0 or 1, not a list"), std::nullopt;
        list.push_back(*n);
      } while (eat(','));
      if (!eat(']')) return fail("a [ without its ]"), std::nullopt;
      return value(list);
    }
    const std::size_t start = pos_;
    long long n = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) &&
           n < 1'000'000'000)
      n = n * 10 + (text_[pos_++] - '0');
    if (pos_ == start) return fail("expected a number, a list or ("), std::nullopt;
    return value(n);
  }

  static constexpr int max_depth = 64;
  static constexpr std::size_t max_entries = 1'000'000;
  std::string text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::string why_;
};

// The layers without experts: --moe-layer-freq N makes layer i an expert layer when
// i % N == 0 (gpt_layer_specs.py, get_gpt_decoder_block_spec); a list pattern gives 1 for each
// expert layer and 0 for each dense one, one entry a layer.
maybe_error read_layer_freq(import_context& ctx, megatron_shape& s) {
  const entry* e = ctx.find("--moe-layer-freq");
  // Megatron-DeepSpeed's DeepSpeed-MoE (microsoft/Megatron-DeepSpeed at f4157bea, arguments.py
  // --expert-interval, default 2; transformer.py get_num_experts_per_layer): layer l (from 1)
  // has experts when l % interval == 0, the others a dense MLP. Its launches run the DeepSpeed
  // engine (--deepspeed) or name the interval.
  if (e == nullptr && s.deepspeed_moe) {
    maybe_error error;
    const long long interval = flag_int(ctx, "--expert-interval", 2, 1, error);
    if (error) return error;
    s.dense_layers.clear();
    for (long long l = 1; l <= s.layers; ++l)
      if (l % interval != 0) s.dense_layers.push_back(l - 1);
    s.moe_freq = interval;
    const entry* at_entry = ctx.find("--expert-interval");
    if (at_entry == nullptr) at_entry = ctx.find("--num-experts");
    ctx.note(*at_entry, fmt::format("DeepSpeed-MoE puts the experts in every {} layer ({} of {}; "
                                    "Megatron-DeepSpeed's --expert-interval{}), a dense MLP in "
                                    "the others",
                                    interval == 2 ? "second" : fmt::format("{}th", interval),
                                    s.layers / interval, s.layers,
                                    ctx.find("--expert-interval") == nullptr ? ", default 2" : ""));
    return std::nullopt;
  }
  if (e == nullptr || s.experts == 0) return std::nullopt;
  // The value as messages quote it: a long one cut after 40 characters.
  const std::string text =
      e->value.text.size() > 48 ? e->value.text.substr(0, 40) + "..." : e->value.text;
  std::vector<long long> pattern;
  if (e->value.text.find('[') != std::string::npos) {
    pattern_parser parser(e->value.text);
    auto parsed = parser.parse();
    if (!parsed)
      return at(e->where, fmt::format("--moe-layer-freq \"{}\": {}", text, parser.why()));
    pattern = std::move(*parsed);
    if (pattern.size() != static_cast<std::size_t>(s.layers))
      return at(e->where, fmt::format("--moe-layer-freq \"{}\": {} entries for {} layers (one "
                                      "a layer, as Megatron requires)",
                                      text, pattern.size(), s.layers));
  } else {
    // argparse's moe_freq_type takes int(x), any sign; Python's i % N == 0 holds exactly where N
    // divides i, so a negative N is |N| (-1: experts in every layer) and 0 divides by zero.
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(e->value.text.c_str(), &end, 10);
    if (e->value.text.empty() || *end != '\0' || n == 0 || errno == ERANGE ||
        n == std::numeric_limits<long long>::min())
      return at(e->where, fmt::format("--moe-layer-freq \"{}\": Megatron puts experts in layer i "
                                      "when i % N == 0 (expected a whole number other than 0, or "
                                      "a list pattern such as ([0]*3+[1]*58))",
                                      text));
    if (n < 0) {
      n = -n;
      ctx.note(*e, fmt::format("--moe-layer-freq {}: layer i has experts when i % {} == 0, as "
                               "for {}",
                               e->value.text, e->value.text, n));
    }
    for (long long i = 0; i < s.layers; ++i) pattern.push_back(i % n == 0 ? 1 : 0);
    s.moe_freq = n;
  }
  for (long long i = 0; i < s.layers; ++i) {
    const long long v = pattern[static_cast<std::size_t>(i)];
    if (v != 0 && v != 1)
      return at(e->where,
                fmt::format("--moe-layer-freq \"{}\": layer {} is {}, expected 1 (experts) or 0 "
                            "(dense)",
                            text, i, v));
    if (v == 0) s.dense_layers.push_back(i);
  }
  return std::nullopt;
}

maybe_error read_shape(import_context& ctx, megatron_shape& s, long long tp) {
  maybe_error error;
  for (const char* required :
       {"--num-layers", "--hidden-size", "--num-attention-heads", "--max-position-embeddings"})
    if (ctx.find(required) == nullptr)
      return at(diagnostic{ctx.source, 0, 0, "", ""},
                fmt::format("{} is missing: Megatron requires --num-layers, --hidden-size, "
                            "--num-attention-heads and --max-position-embeddings (a fork that "
                            "reads them from elsewhere gives them there); add {} N to the "
                            "training command to plan it",
                            required, required));
  s.layers = flag_int(ctx, "--num-layers", 0, 1, error);
  s.hidden = flag_int(ctx, "--hidden-size", 0, 1, error);
  s.heads = flag_int(ctx, "--num-attention-heads", 0, 1, error);
  s.positions = flag_int(ctx, "--max-position-embeddings", 0, 1, error);
  s.swiglu = flag_given(ctx, "--swiglu");
  s.ffn = flag_int(ctx, "--ffn-hidden-size",
                   s.swiglu ? (4 * s.hidden * 2 / 3) / 64 * 64 : 4 * s.hidden, 1, error);
  if (!error && ctx.find("--kv-channels") == nullptr && s.hidden % s.heads != 0)
    return at(ctx.find("--num-attention-heads")->where,
              fmt::format("--num-attention-heads {} does not divide --hidden-size {}; give "
                          "--kv-channels",
                          s.heads, s.hidden));
  s.kv_channels = flag_int(ctx, "--kv-channels", s.heads > 0 ? s.hidden / s.heads : 0, 1, error);
  s.groups = flag_given(ctx, "--group-query-attention")
                 ? flag_int(ctx, "--num-query-groups", 1, 1, error)
                 : s.heads;
  s.experts = flag_int(ctx, "--num-experts", 0, 0, error);
  s.topk = flag_int(ctx, "--moe-router-topk", 2, 1, error);
  // DeepSpeed-MoE's gate (Megatron-DeepSpeed's --topk, default 1: arguments.py at f4157bea) and
  // its residual MoE (--mlp-type residual: PR-MoE's dense MLP beside the experts of every expert
  // layer, mixed by a learned coefficient; transformer.py), which no planned layer holds.
  s.deepspeed_moe = s.experts > 0 && (ctx.find("--deepspeed") != nullptr ||
                                      ctx.find("--expert-interval") != nullptr);
  if (s.deepspeed_moe && ctx.find("--moe-router-topk") == nullptr)
    s.topk = flag_int(ctx, "--topk", 1, 1, error);
  if (const entry* mlp = ctx.find("--mlp-type");
      s.deepspeed_moe && mlp != nullptr && lower_case(mlp->value.text) == "residual")
    return at(mlp->where,
              "--mlp-type residual: PR-MoE's residual MLP, a dense MLP beside the experts "
              "of every expert layer, which vramscope's MoE layers do not hold; "
              "remove it (--mlp-type standard) to plan the experts alone");
  s.moe_ffn = flag_int(ctx, "--moe-ffn-hidden-size", s.ffn, 1, error);
  s.shared = flag_int(ctx, "--moe-shared-expert-intermediate-size", 0, 1, error);
  s.mla = flag_given(ctx, "--multi-latent-attention");
  s.q_lora_rank = flag_int(ctx, "--q-lora-rank", 0, 1, error);
  s.kv_lora_rank = flag_int(ctx, "--kv-lora-rank", 32, 1, error);
  s.qk_head_dim = flag_int(ctx, "--qk-head-dim", 128, 1, error);
  s.qk_pos_dim = flag_int(ctx, "--qk-pos-emb-head-dim", 64, 1, error);
  s.v_head_dim = flag_int(ctx, "--v-head-dim", 128, 1, error);
  if (!error)
    if (auto err = read_layer_freq(ctx, s)) return err;
  if (!error && s.mla && s.experts > 0 && s.moe_freq == 1) {
    // DeepSeek's layout makes the first layers dense (or those off an integer frequency).
    for (std::size_t i = 0; i < s.dense_layers.size(); ++i)
      if (s.dense_layers[i] != static_cast<long long>(i))
        return at(ctx.find("--moe-layer-freq")->where,
                  fmt::format("--moe-layer-freq: layer {} is dense after expert layers; with "
                              "--multi-latent-attention the dense layers are planned as "
                              "DeepSeek's, the first ones",
                              s.dense_layers[i]));
  }
  s.position_type = flag_text(ctx, "--position-embedding-type", "learned_absolute");
  s.norm = flag_text(ctx, "--normalization", "LayerNorm");
  s.tied = !flag_given(ctx, "--untie-embeddings-and-output-weights");
  s.bias = !flag_given(ctx, "--disable-bias-linear");
  s.qkv_bias = flag_given(ctx, "--add-qkv-bias");
  for (auto [flag, value] : {std::pair{"--hidden-dropout", &s.hidden_dropout},
                              std::pair{"--attention-dropout", &s.attention_dropout}}) {
    const entry* e = ctx.find(flag);
    if (e == nullptr) continue;
    char* end = nullptr;
    *value = std::strtod(e->value.text.c_str(), &end);
    if (e->value.text.empty() || *end != '\0' || !(*value >= 0 && *value <= 1)) {
      if (auto unset = unset_value(ctx, *e, flag)) return unset;
      return at(e->where, fmt::format("{}: expected a probability from 0 to 1, got \"{}\"; "
                                      "write one to plan it",
                                      flag, e->value.text));
    }
  }
  if (auto err = read_vocab(ctx, s, tp, error)) return err;
  if (!error && s.groups > s.heads)
    return at(
        ctx.find("--num-query-groups")->where,
        fmt::format("--num-query-groups {} exceeds --num-attention-heads {}", s.groups, s.heads));
  return error;
}

using keys = std::vector<std::pair<std::string, nlohmann::json>>;

keys gpt2_keys(const megatron_shape& s) {
  return {{"model_type", "gpt2"},
          {"vocab_size", s.vocab},
          {"n_positions", s.positions},
          {"n_embd", s.hidden},
          {"n_layer", s.layers},
          {"n_head", s.heads},
          {"n_inner", s.ffn},
          {"activation_function", "gelu"},
          {"resid_pdrop", s.hidden_dropout},
          {"attn_pdrop", s.attention_dropout},
          {"tie_word_embeddings", s.tied}};
}

keys neox_keys(const megatron_shape& s) {
  return {{"model_type", "gpt_neox"},       {"vocab_size", s.vocab},
          {"hidden_size", s.hidden},        {"num_hidden_layers", s.layers},
          {"num_attention_heads", s.heads}, {"intermediate_size", s.ffn},
          {"hidden_act", "gelu"},           {"attention_bias", s.bias || s.qkv_bias},
          {"use_parallel_residual", false}, {"tie_word_embeddings", s.tied}};
}

keys llama_keys(const megatron_shape& s) {
  keys k{{"model_type", s.experts > 0 ? "mixtral" : "llama"},
         {"vocab_size", s.vocab},
         {"hidden_size", s.hidden},
         {"intermediate_size", s.experts > 0 ? s.moe_ffn : s.ffn},
         {"num_hidden_layers", s.layers},
         {"num_attention_heads", s.heads},
         {"num_key_value_heads", s.groups},
         {"head_dim", s.kv_channels},
         {"attention_dropout", s.attention_dropout},
         {"tie_word_embeddings", s.tied}};
  if (s.experts > 0) {
    k.emplace_back("num_local_experts", s.experts);
    k.emplace_back("num_experts_per_tok", s.topk);
  } else {
    k.emplace_back("attention_bias", s.bias || s.qkv_bias);
    k.emplace_back("mlp_bias", s.bias);
  }
  return k;
}

// Megatron's MoE with a shared expert or dense layers among the expert ones: Qwen's MoE
// layouts hold the same (routed experts of moe_intermediate_size, dense layers of
// intermediate_size listed in mlp_only_layers, qwen2_moe's shared expert).
keys qwen_moe_keys(const megatron_shape& s) {
  keys k{{"model_type", s.shared > 0 ? "qwen2_moe" : "qwen3_moe"},
         {"vocab_size", s.vocab},
         {"hidden_size", s.hidden},
         {"intermediate_size", s.ffn},
         {"moe_intermediate_size", s.moe_ffn},
         {"num_hidden_layers", s.layers},
         {"num_attention_heads", s.heads},
         {"num_key_value_heads", s.groups},
         {"head_dim", s.kv_channels},
         {"num_experts", s.experts},
         {"num_experts_per_tok", s.topk},
         {"decoder_sparse_step", 1},
         {"mlp_only_layers", s.dense_layers},
         {"tie_word_embeddings", s.tied}};
  if (s.shared > 0) k.emplace_back("shared_expert_intermediate_size", s.shared);
  return k;
}

// Megatron's multi-latent attention (megatron/core/transformer/multi_latent_attention.py): the
// query through a low-rank bottleneck when --q-lora-rank is given, keys and values from one
// latent of --kv-lora-rank, as DeepSeek's layout holds them; its experts are DeepSeek's routed
// and shared ones, the dense layers the first ones (first_k_dense_replace) or those off an
// integer --moe-layer-freq.
keys deepseek_keys(const megatron_shape& s) {
  keys k{{"model_type", "deepseek_v3"},
         {"vocab_size", s.vocab},
         {"hidden_size", s.hidden},
         {"intermediate_size", s.ffn},
         {"num_hidden_layers", s.layers},
         {"num_attention_heads", s.heads},
         {"q_lora_rank", s.q_lora_rank > 0 ? nlohmann::json(s.q_lora_rank) : nlohmann::json()},
         {"kv_lora_rank", s.kv_lora_rank},
         {"qk_nope_head_dim", s.qk_head_dim},
         {"qk_rope_head_dim", s.qk_pos_dim},
         {"v_head_dim", s.v_head_dim},
         {"tie_word_embeddings", s.tied}};
  if (s.experts > 0) {
    // With a pattern (moe_freq 1) read_shape has checked that the dense layers lead; an
    // integer frequency makes layer 0 an expert layer.
    const bool pattern = s.moe_freq == 1;
    k.insert(k.end(), {{"n_routed_experts", s.experts},
                       {"num_experts_per_tok", s.topk},
                       {"moe_intermediate_size", s.moe_ffn},
                       {"n_shared_experts", std::max(1LL, s.shared / s.moe_ffn)},
                       {"first_k_dense_replace", pattern ? s.dense_layers.size() : 0},
                       {"moe_layer_freq", s.moe_freq}});
  }
  return k;
}

// Where the family chosen holds other tensors than Megatron's layers: said, with the size.
void note_departures(import_context& ctx, const megatron_shape& s, const std::string& type) {
  const auto note_at = [&](const char* flag, const std::string& message) {
    const entry* e = ctx.find(flag);
    if (e != nullptr)
      ctx.note(*e, message);
    else
      ctx.note(message);
  };
  const bool qwen = type == "qwen2_moe" || type == "qwen3_moe";
  const bool llama_like = type == "llama" || type == "mixtral" || qwen || type == "deepseek_v3";
  if (type == "deepseek_v3" && s.experts > 0 && s.shared == 0)
    note_at("--num-experts",
            fmt::format("DeepSeek's layout always has a shared expert: planned with one of {} "
                        "({} parameters an expert layer more than Megatron's)",
                        s.moe_ffn, 3 * s.hidden * s.moe_ffn));
  else if (type == "deepseek_v3" && s.experts > 0 && s.shared % s.moe_ffn != 0)
    note_at("--moe-shared-expert-intermediate-size",
            fmt::format("the shared experts are planned as {} of --moe-ffn-hidden-size {} "
                        "(DeepSeek's layout), not one of {}",
                        std::max(1LL, s.shared / s.moe_ffn), s.moe_ffn, s.shared));
  if (llama_like && s.norm != "RMSNorm")
    note_at("--normalization", fmt::format("{} norms are planned as {}'s RMSNorm (no bias: {} "
                                           "parameters fewer a layer)",
                                           s.norm, type, 2 * s.hidden));
  if (llama_like && s.position_type == "learned_absolute")
    note_at("--position-embedding-type",
            fmt::format("learned absolute positions are planned as {}'s rotary embedding: the "
                        "{} x {} position table is left out",
                        type, s.positions, s.hidden));
  if ((type == "mixtral" || qwen) && (s.bias || !s.swiglu))
    note_at("--num-experts",
            fmt::format("Megatron's MoE layers are planned as {}'s (SwiGLU experts without "
                        "biases, a router without bias)",
                        type == "mixtral" ? "Mixtral" : type));
  if (type == "qwen2_moe")
    note_at("--moe-shared-expert-intermediate-size",
            fmt::format("the shared expert is planned as qwen2_moe's, whose q, k and v carry "
                        "biases ({} parameters a layer){}",
                        s.heads * s.kv_channels + 2 * s.groups * s.kv_channels,
                        flag_given(ctx, "--moe-shared-expert-gate")
                            ? ""
                            : fmt::format(" and whose shared expert has a gate ({} parameters a "
                                          "layer; Megatron's only with --moe-shared-expert-gate)",
                                          s.hidden)));
  if (type == "qwen3_moe")
    note_at("--moe-layer-freq",
            fmt::format("the dense and expert layers are planned as qwen3_moe's, whose query and "
                        "key norms hold {} parameters a layer (Megatron's only with "
                        "--qk-layernorm)",
                        2 * s.kv_channels));
  if (!llama_like && s.norm == "RMSNorm")
    note_at("--normalization",
            fmt::format("RMSNorm is planned as {}'s LayerNorm (with bias)", type));
  if (!llama_like && (s.groups != s.heads || s.kv_channels * s.heads != s.hidden))
    note_at("--num-query-groups", fmt::format("{} has no grouped-query attention or separate "
                                              "head width: planned with {} heads of {}",
                                              type, s.heads, s.hidden / s.heads));
  if (type != "gpt2" && s.hidden_dropout > 0)
    note_at("--hidden-dropout", fmt::format("hidden dropout ({}, Megatron's default 0.1 when not "
                                            "given) is not modelled for {}: its masks are left "
                                            "out; --hidden-dropout 0 says there are none",
                                            s.hidden_dropout, type));
  if (!llama_like && !s.bias)
    note_at("--disable-bias-linear", fmt::format("{} has linear biases: planned with them", type));
}

// The flag a config key comes from, so that a problem the model reader finds names its line.
std::string flag_of_key(const std::string& key) {
  static const std::pair<const char*, const char*> table[] = {
      {"vocab_size", "--vocab-size"},
      {"n_positions", "--max-position-embeddings"},
      {"n_embd", "--hidden-size"},
      {"hidden_size", "--hidden-size"},
      {"n_layer", "--num-layers"},
      {"num_hidden_layers", "--num-layers"},
      {"n_head", "--num-attention-heads"},
      {"num_attention_heads", "--num-attention-heads"},
      {"n_inner", "--ffn-hidden-size"},
      {"intermediate_size", "--ffn-hidden-size"},
      {"num_key_value_heads", "--num-query-groups"},
      {"head_dim", "--kv-channels"},
      {"num_local_experts", "--num-experts"},
      {"num_experts", "--num-experts"},
      {"moe_intermediate_size", "--moe-ffn-hidden-size"},
      {"shared_expert_intermediate_size", "--moe-shared-expert-intermediate-size"},
      {"mlp_only_layers", "--moe-layer-freq"},
      {"first_k_dense_replace", "--moe-layer-freq"},
      {"moe_layer_freq", "--moe-layer-freq"},
      {"n_routed_experts", "--num-experts"},
      {"n_shared_experts", "--moe-shared-expert-intermediate-size"},
      {"q_lora_rank", "--q-lora-rank"},
      {"kv_lora_rank", "--kv-lora-rank"},
      {"qk_nope_head_dim", "--qk-head-dim"},
      {"qk_rope_head_dim", "--qk-pos-emb-head-dim"},
      {"v_head_dim", "--v-head-dim"},
      {"num_experts_per_tok", "--moe-router-topk"}};
  for (const auto& [k, flag] : table)
    if (key == k) return flag;
  return "--num-layers";
}

std::string family_of(const megatron_shape& s) {
  if (s.mla) return "deepseek_v3";
  if (s.experts > 0 && s.shared > 0) return "qwen2_moe";
  if (s.experts > 0 && !s.dense_layers.empty()) return "qwen3_moe";
  if (s.swiglu || s.experts > 0) return s.experts > 0 ? "mixtral" : "llama";
  if (s.position_type == "rope") return "gpt_neox";
  return "gpt2";
}

}  // namespace

maybe_error read_megatron_model(import_context& ctx, const megatron_mesh& m) {
  megatron_shape s;
  if (auto err = read_shape(ctx, s, m.tp)) return err;
  if (s.tied && m.pp > 1) {
    // The last pipeline stage holds its own copy of the word embeddings as the output layer,
    // kept equal by an all-reduce of their gradients (LanguageModule,
    // setup_embeddings_and_output_layer): in memory, an untied head.
    s.tied = false;
    ctx.note(*ctx.find(m.pp_flag),
             "tied embeddings under pipeline parallelism: the last stage keeps its own copy as the "
             "output layer, planned as an untied head");
  }
  const std::string type = family_of(s);
  if (!s.swiglu && s.experts == 0 && s.position_type != "rope" &&
      s.position_type != "learned_absolute")
    ctx.note(*ctx.find("--position-embedding-type"),
             fmt::format("--position-embedding-type {} is planned as learned absolute positions "
                         "(gpt2)",
                         s.position_type));
  // The families that hold experts have SwiGLU MLPs (three matrices of F' a layer); a GeLU MLP of
  // F (two matrices) is the same weights as a SwiGLU MLP of F' = 2F/3, and about the same
  // activations (GeLU keeps its F-wide input and output a token, SwiGLU three F'-wide tensors).
  if (s.experts > 0 && !s.swiglu) {
    const long long ffn = s.ffn, moe_ffn = s.moe_ffn;
    s.ffn = (2 * ffn + 1) / 3;
    s.moe_ffn = (2 * moe_ffn + 1) / 3;
    ctx.note(*ctx.find("--num-experts"),
             fmt::format("experts without --swiglu: GeLU MLPs of {} (experts {}) planned as "
                         "SwiGLU MLPs of {} (experts {}), the same weights and about the same "
                         "activations",
                         ffn, moe_ffn, s.ffn, s.moe_ffn));
  }
  note_departures(ctx, s, type);
  const keys k = type == "gpt2"       ? gpt2_keys(s)
                 : type == "gpt_neox" ? neox_keys(s)
                 : type == "qwen2_moe" || type == "qwen3_moe" ? qwen_moe_keys(s)
                 : type == "deepseek_v3"                      ? deepseek_keys(s)
                                                              : llama_keys(s);
  const std::string name = fmt::format("Megatron-LM {} ({})", type,
                                       std::filesystem::path(ctx.source).filename().string());
  auto& job = ctx.out.job;
  const entry* anchor = ctx.find("--num-layers");
  job.model = name;
  job.model_config = {{"_name_or_path", nlohmann::json(name).dump(), anchor->where}};
  for (const auto& [key, value] : k) {
    const entry* from = ctx.find(flag_of_key(key));
    job.model_config.push_back({key, value.dump(), from != nullptr ? from->where : anchor->where});
    if (key == "vocab_size" && s.vocab_unknown) {
      job.model_config.back().json = "null";
      job.model_config.back().unknown = s.vocab_unknown->message;
      job.model_config.back().where = *s.vocab_unknown;
      job.model_config.back().where.message.clear();
    }
  }
  job.provenance.set_at["model"] = anchor->where;
  for (const char* flag : megatron_model_flags)
    if (const entry* e = ctx.find(flag)) ctx.mapped_to(*e, "model");
  return std::nullopt;
}

}  // namespace vramscope::job::detail
