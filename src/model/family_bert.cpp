// BERT (transformers' modeling_bert.py): post-LN encoder layers, biases everywhere.
//
//   bert.embeddings.word_embeddings.weight        [vocab, hidden]
//   bert.embeddings.position_embeddings.weight    [max_position_embeddings, hidden]
//   bert.embeddings.token_type_embeddings.weight  [type_vocab_size, hidden]
//   bert.embeddings.LayerNorm.weight/.bias        [hidden]
//   bert.encoder.layer.N.attention.self.{query,key,value} [hidden, hidden] (+bias)
//   bert.encoder.layer.N.attention.output.dense [hidden, hidden] (+bias)
//   bert.encoder.layer.N.attention.output.LayerNorm.weight/.bias [hidden]
//   bert.encoder.layer.N.intermediate.dense [intermediate, hidden] (+bias)
//   bert.encoder.layer.N.output.dense [hidden, intermediate] (+bias), output.LayerNorm
//   bert.pooler.dense [hidden, hidden] (+bias)          BertModel, BertForPreTraining
//   cls.predictions.bias [vocab], cls.predictions.transform.dense [hidden, hidden] (+bias),
//   cls.predictions.transform.LayerNorm; cls.predictions.decoder.weight [vocab, hidden] only
//   when untied (BertLMPredictionHead: decoder.weight is the word embeddings', decoder.bias is
//   cls.predictions.bias)                               BertForPreTraining, BertForMaskedLM
//   cls.seq_relationship [2, hidden] (+bias)            BertForPreTraining (next sentence)
//
// Which model: the class "architectures" names; BertModel has no "bert." prefix (its own state
// dict). A config without "architectures" reads as BertForPreTraining, the model the original
// checkpoints (bert-base-uncased, bert-large-uncased, ...) were trained and saved as, with both
// heads and the pooler. The task heads (BertForSequenceClassification, ...) are refused.
//
// Planned as a stack of sequential LayerNorm blocks: a post-LN layer keeps as many hidden-size
// tensors as a pre-LN one (the block input for q/k/v, the first LayerNorm's input and output,
// the second LayerNorm's input; its output is the next block's input), bidirectional attention
// costs what causal attention does under SDPA, and the masked-LM loss runs over every token's
// logits (BertForMaskedLM computes prediction_scores for all positions). BertModel has no head:
// vocab 0, no loss planned.
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

struct bert_layout {
  std::uint64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0;
  std::uint64_t positions = 0, token_types = 0;
  bool pooler = false, mlm = false, nsp = false, tied = true;
  std::string prefix;  // "bert." or "" (BertModel)
};

// Refuses what changes the layer beyond the layout above.
void check_variant(field_reader& c) {
  const std::string position = c.text("position_embedding_type", "absolute");
  c.check(position == "absolute", "position_embedding_type",
          fmt::format("field \"position_embedding_type\" is \"{}\": relative position embeddings "
                      "(a distance_embedding per layer and scores that only eager attention "
                      "computes) are not modelled; only \"absolute\" is read",
                      position));
  c.check(!c.flag("add_cross_attention", false), "add_cross_attention",
          "field \"add_cross_attention\" is true: BERT as the decoder of an encoder-decoder "
          "model (a cross-attention per layer) is not modelled");
}

bert_layout read_bert(field_reader& c) {
  bert_layout b;
  const std::string model = read_architecture(
      c, "bert", {"BertForPreTraining", "BertForMaskedLM", "BertLMHeadModel", "BertModel"},
      "BertForPreTraining");
  b.pooler = model == "BertForPreTraining" || model == "BertModel";
  b.mlm = model != "BertModel";
  b.nsp = model == "BertForPreTraining";
  b.prefix = model == "BertModel" ? "" : "bert.";
  // BertConfig defaults for the fields real configs may leave out: 512 positions, 2 token types.
  b.vocab = c.size("vocab_size", 30522);
  b.hidden = c.size("hidden_size", 768);
  b.intermediate = c.size("intermediate_size", 3072);
  b.layers = c.size("num_hidden_layers", 12, max_config_layers);
  b.heads = c.size("num_attention_heads", 12);
  b.positions = c.count("max_position_embeddings", 512);
  b.token_types = c.count("type_vocab_size", 2);
  b.tied = c.flag("tie_word_embeddings", true);
  check_variant(c);
  if (!c.failed())
    c.check(b.hidden % b.heads == 0, "num_attention_heads",
            fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", b.hidden,
                        b.heads));
  return b;
}

void add_layer(inventory_builder& out, const bert_layout& b, std::uint64_t i) {
  out.begin_unit(fmt::format("encoder.layer.{}", i), unit_kind::block);
  const std::string p = fmt::format("{}encoder.layer.{}.", b.prefix, i);
  for (const char* proj : {"query", "key", "value"})
    add_linear(out, p + "attention.self." + proj, b.hidden, b.hidden, true);
  add_linear(out, p + "attention.output.dense", b.hidden, b.hidden, true);
  add_layer_norm(out, p + "attention.output.LayerNorm", b.hidden);
  add_linear(out, p + "intermediate.dense", b.intermediate, b.hidden, true);
  add_linear(out, p + "output.dense", b.hidden, b.intermediate, true);
  add_layer_norm(out, p + "output.LayerNorm", b.hidden);
}

void add_heads(inventory_builder& out, const bert_layout& b) {
  if (!b.mlm) return;
  out.begin_unit("cls", unit_kind::head);
  out.add("cls.predictions.bias", {b.vocab});
  add_linear(out, "cls.predictions.transform.dense", b.hidden, b.hidden, true);
  add_layer_norm(out, "cls.predictions.transform.LayerNorm", b.hidden);
  if (!b.tied) out.add("cls.predictions.decoder.weight", {b.vocab, b.hidden});
  if (b.nsp) add_linear(out, "cls.seq_relationship", 2, b.hidden, true);
}

}  // namespace

void build_bert(field_reader& c, inventory_builder& out, std::string_view) {
  const bert_layout b = read_bert(c);
  const std::uint32_t act = read_activation(c, "hidden_act", "gelu");
  const bool dropout = c.probability("hidden_dropout_prob", 0.1) > 0;
  const bool attention_dropout = c.probability("attention_probs_dropout_prob", 0.1) > 0;
  if (c.failed()) return;
  out.begin_unit("embeddings", unit_kind::embedding);
  const std::string e = b.prefix + "embeddings.";
  out.add(e + "word_embeddings.weight", {b.vocab, b.hidden});
  out.add(e + "position_embeddings.weight", {b.positions, b.hidden});
  out.add(e + "token_type_embeddings.weight", {b.token_types, b.hidden});
  add_layer_norm(out, e + "LayerNorm", b.hidden);
  for (std::uint64_t i = 0; i < b.layers && !out.full(); ++i) add_layer(out, b, i);
  if (b.pooler) {  // BertPooler: dense + tanh over the first token
    out.begin_unit("pooler", unit_kind::other);
    add_linear(out, b.prefix + "pooler.dense", b.hidden, b.hidden, true);
  }
  add_heads(out, b);
  stack_shape& s = out.spec().text;
  s.family = "bert";
  s.hidden = b.hidden;
  s.intermediate = b.intermediate;
  s.layers = b.layers;
  s.heads = s.kv_heads = b.heads;
  s.head_dim = b.hidden / b.heads;
  s.vocab = b.mlm ? b.vocab : 0;
  s.gated_mlp = false;
  s.tied_embeddings = b.mlm && b.tied;
  s.layer_norm = true;
  s.activation_saved = act;
  s.residual_dropout = dropout;
  s.attention_dropout = attention_dropout;
}

}  // namespace vramscope::model::detail
