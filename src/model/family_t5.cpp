// T5 (transformers' modeling_t5.py): a shared embedding, an encoder and a decoder stack of
// T5Blocks; T5LayerNorm is a scale only (RMS-style, no bias), and no Linear has a bias.
//
//   shared.weight [vocab, d_model]     (encoder.embed_tokens and decoder.embed_tokens are this
//                                       tensor, not parameters of their own)
//   S.block.N.layer.0.SelfAttention.{q,k,v}.weight [heads*d_kv, d_model], .o [d_model, heads*d_kv]
//   S.block.0.layer.0.SelfAttention.relative_attention_bias.weight [buckets, heads]
//                                      (block 0 of each stack only; the others reuse its bias)
//   S.block.N.layer.0.layer_norm.weight [d_model]
//   decoder.block.N.layer.1.EncDecAttention.{q,k,v,o}.weight, layer.1.layer_norm.weight
//   S.block.N.layer.F.DenseReluDense.wi [d_ff, d_model] (wi_0 and wi_1 when gated), .wo
//       [d_model, d_ff]; layer.F.layer_norm.weight   (F = 1 in the encoder, 2 in the decoder)
//   S.final_layer_norm.weight [d_model]
//   lm_head.weight [vocab, d_model]    (absent when tie_word_embeddings, T5Config's default)
// with S = encoder or decoder.
//
// Which model: T5ForConditionalGeneration (or its old name T5WithLMHeadModel) unless
// "architectures" names T5Model (no lm_head) or T5EncoderModel (shared embedding and encoder
// only); the task heads (T5ForSequenceClassification, ...) are refused.
//
// Planned as: the decoder is `text` (units decoder.*, the head and the loss over its tokens),
// the encoder an extra stack (units encoder.*); a job's seq_len is the length of both the
// encoder's input and the decoder's (docs/models.md). T5Attention computes its scores itself
// (matmul, + relative position bias, softmax in fp32, dropout, matmul), so the scores are
// planned as eager attention whatever the job asks for; the decoder's blocks add the
// cross-attention.
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

struct t5_layout {
  std::uint64_t vocab = 0, d_model = 0, d_kv = 0, d_ff = 0, heads = 0, buckets = 0;
  std::uint64_t encoder_layers = 0, decoder_layers = 0;  // decoder_layers 0: no decoder
  bool gated = false, tied = true, lm_head = true;
  std::uint32_t activation_saved = 1;
  bool dropout = false;
};

// T5Config.__init__: feed_forward_proj is "ACT" or "gated-ACT"; "gated-gelu" runs gelu_new.
void read_feed_forward(field_reader& c, t5_layout& t) {
  const std::string proj = c.text("feed_forward_proj", "relu");
  t.gated = proj.starts_with("gated-");
  const std::string act =
      proj == "gated-gelu" ? "gelu_new" : proj.substr(t.gated ? std::string("gated-").size() : 0);
  const auto saved = activation_saved(act);
  if (!saved && !c.failed())
    c.fail("feed_forward_proj",
           fmt::format("field \"feed_forward_proj\" is \"{}\": expected an activation (gelu, "
                       "gelu_new, gelu_fast, gelu_pytorch_tanh, quick_gelu, relu, silu), alone "
                       "or after \"gated-\"",
                       proj));
  t.activation_saved = saved.value_or(1);
}

t5_layout read_t5(field_reader& c) {
  t5_layout t;
  // T5WithLMHeadModel is T5ForConditionalGeneration's name before transformers 2.3, which
  // the original checkpoints' configs (t5-small ... t5-11b) still carry.
  const std::string model = read_architecture(
      c, "t5", {"T5ForConditionalGeneration", "T5WithLMHeadModel", "T5Model", "T5EncoderModel"},
      "T5ForConditionalGeneration");
  // T5Config defaults (t5-small): 32128 / 512 / d_kv 64 / 2048 / 6 layers / 8 heads / 32 buckets.
  t.vocab = c.size("vocab_size", 32128);
  t.d_model = c.size("d_model", 512);
  t.d_kv = c.size("d_kv", 64);
  t.d_ff = c.size("d_ff", 2048);
  t.encoder_layers = c.size("num_layers", 6, max_config_layers);
  t.heads = c.size("num_heads", 8);
  t.buckets = c.count("relative_attention_num_buckets", 32);
  // num_decoder_layers None (absent or null) means num_layers.
  t.decoder_layers = model == "T5EncoderModel"
                         ? 0
                         : c.count("num_decoder_layers", t.encoder_layers, max_config_layers);
  t.tied = c.flag("tie_word_embeddings", true);
  t.lm_head = model != "T5Model";
  t.dropout = c.probability("dropout_rate", 0.1) > 0;
  read_feed_forward(c, t);
  return t;
}

void add_attention(inventory_builder& out, const t5_layout& t, const std::string& p,
                   bool relative_bias) {
  const std::uint64_t inner = t.heads * t.d_kv;
  for (const char* proj : {"q", "k", "v"}) add_linear(out, p + proj, inner, t.d_model, false);
  add_linear(out, p + "o", t.d_model, inner, false);
  if (relative_bias) out.add(p + "relative_attention_bias.weight", {t.buckets, t.heads});
}

void add_feed_forward(inventory_builder& out, const t5_layout& t, const std::string& p) {
  if (t.gated) {
    add_linear(out, p + "DenseReluDense.wi_0", t.d_ff, t.d_model, false);
    add_linear(out, p + "DenseReluDense.wi_1", t.d_ff, t.d_model, false);
  } else {
    add_linear(out, p + "DenseReluDense.wi", t.d_ff, t.d_model, false);
  }
  add_linear(out, p + "DenseReluDense.wo", t.d_model, t.d_ff, false);
  out.add(p + "layer_norm.weight", {t.d_model});
}

// One stack ("encoder" or "decoder"): T5Block's layers are self-attention, the decoder's
// cross-attention, then the feed-forward, each with its own layer_norm.
void add_stack(inventory_builder& out, const t5_layout& t, const std::string& stack,
               std::uint64_t layers, bool decoder) {
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    const std::string unit = fmt::format("{}.block.{}", stack, i);
    out.begin_unit(unit, unit_kind::block);
    add_attention(out, t, unit + ".layer.0.SelfAttention.", i == 0);
    out.add(unit + ".layer.0.layer_norm.weight", {t.d_model});
    if (decoder) {
      add_attention(out, t, unit + ".layer.1.EncDecAttention.", false);
      out.add(unit + ".layer.1.layer_norm.weight", {t.d_model});
    }
    add_feed_forward(out, t, fmt::format("{}.layer.{}.", unit, decoder ? 2 : 1));
  }
  out.begin_unit(stack + ".final_layer_norm", unit_kind::norm);
  out.add(stack + ".final_layer_norm.weight", {t.d_model});
}

stack_shape shape_of(const t5_layout& t, std::uint64_t layers, bool decoder) {
  stack_shape s;
  s.family = "t5";
  s.hidden = t.d_model;
  s.intermediate = t.d_ff;
  s.layers = layers;
  s.heads = s.kv_heads = t.heads;
  s.head_dim = t.d_kv;
  s.gated_mlp = t.gated;
  s.activation_saved = t.activation_saved;
  s.layer_norm = false;  // T5LayerNorm upcasts to fp32 like the decoders' RMSNorm
  s.residual_dropout = t.dropout;
  s.attention_dropout = t.dropout;
  s.eager_attention = true;
  s.cross_attention = decoder;
  return s;
}

}  // namespace

void build_t5(field_reader& c, inventory_builder& out, std::string_view) {
  const t5_layout t = read_t5(c);
  if (c.failed()) return;
  out.begin_unit("shared", unit_kind::embedding);
  out.add("shared.weight", {t.vocab, t.d_model});
  add_stack(out, t, "encoder", t.encoder_layers, false);
  stack_shape encoder = shape_of(t, t.encoder_layers, false);
  if (t.decoder_layers == 0) {  // T5EncoderModel: the encoder is the only stack
    out.spec().text = encoder;
    return;
  }
  add_stack(out, t, "decoder", t.decoder_layers, true);
  if (t.lm_head && !t.tied) {
    out.begin_unit("lm_head", unit_kind::head);
    out.add("lm_head.weight", {t.vocab, t.d_model});
  }
  stack_shape& decoder = out.spec().text = shape_of(t, t.decoder_layers, true);
  decoder.vocab = t.lm_head ? t.vocab : 0;
  decoder.tied_embeddings = t.lm_head && t.tied;
  encoder.unit_prefix = "encoder.";
  out.spec().extra.push_back(std::move(encoder));
}

}  // namespace vramscope::model::detail
