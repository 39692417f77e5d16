// The encoder families: BERT, CLIP and T5. Their parameter counts are checked against the
// published ones; where a count is computed, the test says how.
#include <vramscope/model/config_reader.hpp>

#include "spec_lookup.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/config_parsing.hpp"

namespace vramscope::model {
namespace {

model_spec realworld(const std::string& file) {
  auto spec = read_config_json(std::string(VRAMSCOPE_SOURCE_DIR) +
                               "/tests/data/realworld/hf_config/" + file);
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

using testing::error_of;
using testing::first_line;
using testing::parsed;

const unit* unit_of(const model_spec& spec, const std::string& name) {
  for (const auto& u : spec.units)
    if (u.name == name) return &u;
  ADD_FAILURE() << "no unit " << name;
  return nullptr;
}

// bert-large-uncased's sizes; `architectures` chooses the model class.
std::string bert_large(const std::string& architecture) {
  return R"({"model_type": "bert", "architectures": [")" + architecture +
         R"("], "vocab_size": 30522, "hidden_size": 1024, "num_hidden_layers": 24,
            "num_attention_heads": 16, "intermediate_size": 4096})";
}

std::string bert_base(const std::string& architecture) {
  return R"({"model_type": "bert", "architectures": [")" + architecture +
         R"("], "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072})";
}

// BERT ------------------------------------------------------------------------------------------

TEST(BertFamily, ModelClassesCountAsTheirCheckpoints) {
  // BertModel (embeddings, 24 layers, pooler) of bert-large-uncased: 335,141,888, the count
  // transformers' BertModel.num_parameters() gives; by hand: embeddings 31,782,912 (30522 x
  // 1024 + 512 x 1024 + 2 x 1024 + LayerNorm 2048), 24 layers of 12,596,224 (q, k, v, o with
  // biases 4,198,400, two LayerNorms 4,096, intermediate 4,198,400, output 4,195,328) and the
  // pooler 1,049,600.
  EXPECT_EQ(parsed(bert_large("BertModel")).parameters(), 335'141'888u);
  // BertForMaskedLM (what the corpus config names): no pooler; the MLM head's transform
  // 1,049,600 + LayerNorm 2,048 + decoder bias 30,522, its decoder tied to the embeddings.
  EXPECT_EQ(realworld("dsexamples_bert-large-uncased-whole-word-masking-config.json").parameters(),
            335'141'888u - 1'049'600u + 1'082'170u);
  // BertForPreTraining adds both the pooler and next-sentence head [2, 1024] + bias: 336M, the
  // size the Hub shows for bert-large-uncased, whose checkpoint is this class.
  EXPECT_EQ(parsed(bert_large("BertForPreTraining")).parameters(), 336'226'108u);
  // bert-base-uncased: BertModel 109,482,240 and BertForPreTraining 110,106,428, the counts
  // transformers reports for the published checkpoint.
  EXPECT_EQ(parsed(bert_base("BertModel")).parameters(), 109'482'240u);
  EXPECT_EQ(parsed(bert_base("BertForPreTraining")).parameters(), 110'106'428u);
}

TEST(BertFamily, NamesShapesAndUnitsOfBertForPreTraining) {
  const auto spec = parsed(bert_base("BertForPreTraining"));
  EXPECT_EQ(shape_of(spec, "bert.embeddings.position_embeddings.weight"), (shape{512, 768}));
  EXPECT_EQ(shape_of(spec, "bert.embeddings.token_type_embeddings.weight"), (shape{2, 768}));
  const std::vector<std::string> layer0 = {"query.weight", "query.bias",   "key.weight",
                                           "key.bias",     "value.weight", "value.bias"};
  const auto* first = find(spec, "bert.encoder.layer.0.attention.self.query.weight");
  ASSERT_NE(first, nullptr);
  for (std::size_t i = 0; i < layer0.size(); ++i)
    EXPECT_EQ(first[i].name, "bert.encoder.layer.0.attention.self." + layer0[i]);
  EXPECT_EQ(shape_of(spec, "bert.encoder.layer.11.output.dense.weight"), (shape{768, 3072}));
  EXPECT_EQ(shape_of(spec, "bert.pooler.dense.weight"), (shape{768, 768}));
  EXPECT_EQ(shape_of(spec, "cls.predictions.bias"), (shape{30522}));
  EXPECT_EQ(shape_of(spec, "cls.seq_relationship.weight"), (shape{2, 768}));
  EXPECT_EQ(find(spec, "cls.predictions.decoder.weight"), nullptr);  // tied
  EXPECT_EQ(spec.units.front().name, "embeddings");
  EXPECT_EQ(unit_of(spec, "encoder.layer.3")->kind, unit_kind::block);
  EXPECT_EQ(unit_of(spec, "pooler")->kind, unit_kind::other);
  EXPECT_EQ(spec.units.back().name, "cls");
  EXPECT_EQ(spec.units.back().kind, unit_kind::head);
  // Facts for the activation model: LayerNorm, plain GELU MLP, both dropouts, the MLM logits.
  EXPECT_EQ(spec.text.family, "bert");
  EXPECT_TRUE(spec.text.layer_norm);
  EXPECT_FALSE(spec.text.gated_mlp);
  EXPECT_TRUE(spec.text.residual_dropout);
  EXPECT_TRUE(spec.text.attention_dropout);
  EXPECT_FALSE(spec.text.eager_attention);
  EXPECT_EQ(spec.text.vocab, 30522u);
  EXPECT_TRUE(spec.text.tied_embeddings);
  EXPECT_EQ(spec.type, dtype::f32);
}

TEST(BertFamily, BertModelHasNoPrefixAndNoLogits) {
  const auto spec = parsed(bert_base("BertModel"));
  EXPECT_NE(find(spec, "embeddings.word_embeddings.weight"), nullptr);
  EXPECT_EQ(find(spec, "cls.predictions.bias"), nullptr);
  EXPECT_EQ(spec.text.vocab, 0u);  // no head: no loss is planned
}

TEST(BertFamily, WithoutArchitecturesReadsAsBertForPreTraining) {
  const auto spec = parsed(R"({"model_type": "bert", "vocab_size": 30522, "hidden_size": 768,
      "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072})");
  EXPECT_EQ(spec.parameters(), 110'106'428u);
}

TEST(BertFamily, UntiedDecoderIsItsOwnTensor) {
  auto text = bert_base("BertForMaskedLM");
  text.insert(text.size() - 1, R"(, "tie_word_embeddings": false)");
  const auto spec = parsed(text);
  EXPECT_EQ(shape_of(spec, "cls.predictions.decoder.weight"), (shape{30522, 768}));
  EXPECT_FALSE(spec.text.tied_embeddings);
}

TEST(BertFamily, RefusesTaskHeadsAndVariantsItDoesNotModel) {
  EXPECT_EQ(first_line(error_of(bert_base("BertForSequenceClassification"))),
            "config.json:1:24: field \"architectures\" names BertForSequenceClassification, "
            "which vramscope does not read for model_type \"bert\" (its heads are not modelled); "
            "it reads BertForPreTraining, BertForMaskedLM, BertLMHeadModel, BertModel");
  auto relative = bert_base("BertModel");
  relative.insert(relative.size() - 1, R"(, "position_embedding_type": "relative_key")");
  EXPECT_EQ(first_line(error_of(relative)),
            "config.json:2:67: field \"position_embedding_type\" is \"relative_key\": relative "
            "position embeddings (a distance_embedding per layer and scores that only eager "
            "attention computes) are not modelled; only \"absolute\" is read");
}

TEST(BertFamily, BadInputNamesTheField) {
  EXPECT_EQ(error_of(R"({"model_type": "bert", "vocab_size": 30522, "num_hidden_layers": 12,
      "num_attention_heads": 12, "intermediate_size": 3072})"),
            "config.json: missing required field \"hidden_size\" (a positive integer)");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "bert", "vocab_size": 30522,
      "hidden_size": 768, "num_hidden_layers": 0, "num_attention_heads": 12,
      "intermediate_size": 3072})")),
            "config.json:2:27: field \"num_hidden_layers\" must be a positive integer, got 0");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "bert", "architectures": "BertModel"})")),
            "config.json:1:24: field \"architectures\" must be a list of strings, got "
            "\"BertModel\"");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "bert", "vocab_size": 30522,
      "hidden_size": 768, "num_hidden_layers": 2, "num_attention_heads": 7,
      "intermediate_size": 3072})")),
            "config.json:2:51: hidden_size 768 is not a multiple of num_attention_heads 7");
}

// CLIP ------------------------------------------------------------------------------------------

TEST(ClipFamily, VitLargeCountsAsTheCheckpoint) {
  // openai/clip-vit-large-patch14 (CLIPModel): 427,616,513 parameters, the count of the
  // published checkpoint; by hand: vision tower 303,179,776 (class token 1,024, patch conv
  // 602,112, 257 positions 263,168, pre/post LayerNorms 4,096, 24 layers of 12,596,224), text
  // tower 123,060,480 (49408 x 768 tokens, 77 x 768 positions, 12 layers of 7,087,872, final
  // LayerNorm 1,536), projections 786,432 + 589,824 and logit_scale 1.
  const auto spec = realworld("torchtitan_flux_test_clip-vit-large-patch14_config.json");
  EXPECT_EQ(spec.parameters(), 427'616'513u);
  EXPECT_EQ(spec.text.family, "clip");
  EXPECT_EQ(spec.text.vocab, 0u);             // contrastive loss: no vocabulary logits
  EXPECT_EQ(spec.text.activation_saved, 2u);  // quick_gelu: x and sigmoid(1.702 x)
  ASSERT_TRUE(spec.vision);
  EXPECT_EQ(spec.vision->image_tokens, 257u);  // 16 x 16 patches and the class token
  EXPECT_EQ(spec.vision->hidden, 1024u);
}

TEST(ClipFamily, TowersNamesAndUnits) {
  const auto spec = realworld("torchtitan_flux_test_clip-vit-large-patch14_config.json");
  EXPECT_EQ(shape_of(spec, "vision_model.embeddings.class_embedding"), (shape{1024}));
  EXPECT_EQ(shape_of(spec, "vision_model.embeddings.patch_embedding.weight"),
            (shape{1024, 3, 14, 14}));
  EXPECT_EQ(find(spec, "vision_model.embeddings.patch_embedding.bias"), nullptr);
  EXPECT_EQ(shape_of(spec, "vision_model.embeddings.position_embedding.weight"),
            (shape{257, 1024}));
  EXPECT_NE(find(spec, "vision_model.pre_layrnorm.weight"), nullptr);
  EXPECT_EQ(shape_of(spec, "vision_model.encoder.layers.23.mlp.fc1.weight"), (shape{4096, 1024}));
  EXPECT_EQ(shape_of(spec, "text_model.embeddings.position_embedding.weight"), (shape{77, 768}));
  EXPECT_EQ(shape_of(spec, "text_model.encoder.layers.0.self_attn.k_proj.bias"), (shape{768}));
  EXPECT_EQ(shape_of(spec, "visual_projection.weight"), (shape{768, 1024}));
  EXPECT_EQ(shape_of(spec, "text_projection.weight"), (shape{768, 768}));
  EXPECT_EQ(shape_of(spec, "logit_scale"), shape{});
  EXPECT_EQ(spec.units.front().name, "vision_model.embeddings");
  EXPECT_EQ(unit_of(spec, "vision_model.layers.0")->kind, unit_kind::vision_block);
  EXPECT_EQ(unit_of(spec, "vision_model.post_layernorm")->kind, unit_kind::vision_head);
  EXPECT_EQ(unit_of(spec, "text_model.layers.11")->kind, unit_kind::block);
  EXPECT_EQ(unit_of(spec, "text_model.final_layer_norm")->kind, unit_kind::norm);
  EXPECT_EQ(spec.units.back().name, "logit_scale");
}

TEST(ClipFamily, BigGFromTheConfigDicts) {
  // DeepSpeed-VisualChat's CLIP is OpenCLIP's ViT-bigG/14 (1664 wide, 48 layers; text 1280 wide,
  // 32 layers): 2,539,567,105 parameters, OpenCLIP's 2539.57 M for ViT-bigG-14.
  const auto spec = realworld("dsexamples_qwen_clip_config.json");
  EXPECT_EQ(spec.parameters(), 2'539'567'105u);
  EXPECT_EQ(spec.vision->head_dim, 104u);
}

TEST(ClipFamily, ConfigDictOverridesTheSubConfig) {
  // CLIPConfig.__init__ builds a tower from "<tower>_config_dict" (with the class defaults)
  // when there is one, whatever "<tower>_config" says.
  const auto spec = parsed(R"({"model_type": "clip",
      "text_config": {"hidden_size": 64, "num_attention_heads": 4},
      "text_config_dict": {"hidden_size": 32, "num_attention_heads": 4},
      "vision_config": {"hidden_size": 96}})");
  EXPECT_EQ(spec.text.hidden, 32u);
  EXPECT_EQ(spec.text.intermediate, 2048u);  // CLIPTextConfig's default
  EXPECT_EQ(spec.vision->hidden, 96u);
  EXPECT_EQ(spec.vision->image_tokens, 50u);  // CLIPVisionConfig: 224 px, patch 32, + class
}

TEST(ClipFamily, TowersAloneCountAsFluxsEncoders) {
  // FLUX's CLIP-L text encoder (CLIPTextModel): 123,060,480, the text tower above.
  const auto text = parsed(R"({"model_type": "clip_text_model", "vocab_size": 49408,
      "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
      "num_attention_heads": 12})");
  EXPECT_EQ(text.parameters(), 123'060'480u);
  EXPECT_FALSE(text.vision);
  // CLIPVisionModelWithProjection: the vision tower above and its projection, 786,432.
  const auto vision = parsed(R"({"model_type": "clip_vision_model",
      "architectures": ["CLIPVisionModelWithProjection"], "hidden_size": 1024,
      "intermediate_size": 4096, "num_hidden_layers": 24, "num_attention_heads": 16,
      "patch_size": 14, "image_size": 224, "projection_dim": 768})");
  EXPECT_EQ(vision.parameters(), 303'179'776u + 786'432u);
  ASSERT_TRUE(vision.vision);
  EXPECT_EQ(vision.text.image_tokens, 257u);
}

TEST(ClipFamily, BadInputNamesTheField) {
  EXPECT_EQ(first_line(error_of(R"({"model_type": "clip", "vision_config": {"patch_size": 0}})")),
            "config.json:1:42: field \"vision_config.patch_size\" must be a positive integer, "
            "got 0");
  EXPECT_EQ(
      first_line(error_of(R"({"model_type": "clip", "text_config": {"hidden_act": "tanh"}})")),
      "config.json:1:40: unknown activation \"tanh\": expected one of gelu, gelu_new, "
      "gelu_fast, gelu_pytorch_tanh, quick_gelu, relu, silu");
  EXPECT_EQ(error_of(R"({"model_type": "clip_text_model", "hidden_size": 64})"),
            "config.json: missing required field \"vocab_size\" (a positive integer)");
}

// T5 --------------------------------------------------------------------------------------------

TEST(T5Family, CheckpointCounts) {
  // t5-v1_1-xxl (T5ForConditionalGeneration, untied head): computed from the config and
  // modeling_t5.py's shapes: shared 32128 x 4096 = 131,596,288; 24 encoder blocks of
  // 192,946,176 (q, k, v, o 4 x 4096 x 4096, gated FFN 3 x 4096 x 10240, two norms); 24
  // decoder blocks of 260,059,136 (plus the cross-attention and its norm); two relative
  // biases 32 x 64; two final norms; lm_head 131,596,288.
  const auto xxl = realworld("torchtitan_flux_test_t5-v1_1-xxl_config.json");
  EXPECT_EQ(xxl.parameters(), 11'135'332'352u);
  // Its encoder alone (T5EncoderModel, FLUX's text encoder): 4,762,310,656.
  const auto encoder = parsed(R"({"model_type": "t5", "architectures": ["T5EncoderModel"],
      "d_ff": 10240, "d_kv": 64, "d_model": 4096, "num_heads": 64, "num_layers": 24,
      "vocab_size": 32128, "feed_forward_proj": "gated-gelu"})");
  EXPECT_EQ(encoder.parameters(), 4'762'310'656u);
  // t5-11b (the original T5's XXL: ReLU FFN of 65536, 128 heads of 128, tied head; its
  // config.json as published, with the old class name): 11,307,321,344, the count of the
  // checkpoint; t5-small: 60,506,624, likewise.
  const auto t5_11b = parsed(R"({"model_type": "t5", "architectures": ["T5WithLMHeadModel"],
      "d_ff": 65536, "d_kv": 128, "d_model": 1024, "num_heads": 128, "num_layers": 24,
      "vocab_size": 32128})");
  EXPECT_EQ(t5_11b.parameters(), 11'307'321'344u);
  const auto small = parsed(R"({"model_type": "t5", "d_ff": 2048, "d_kv": 64, "d_model": 512,
      "num_heads": 8, "num_layers": 6, "vocab_size": 32128})");
  EXPECT_EQ(small.parameters(), 60'506'624u);
  EXPECT_EQ(find(small, "lm_head.weight"), nullptr);  // tied by default
  EXPECT_TRUE(small.text.tied_embeddings);
}

TEST(T5Family, BlocksNamesAndStacks) {
  const auto spec = realworld("torchtitan_flux_test_t5-v1_1-xxl_config.json");
  EXPECT_EQ(shape_of(spec, "shared.weight"), (shape{32128, 4096}));
  EXPECT_EQ(shape_of(spec, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
            (shape{32, 64}));
  EXPECT_EQ(find(spec, "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"),
            nullptr);
  EXPECT_NE(find(spec, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
            nullptr);
  EXPECT_EQ(find(spec, "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"),
            nullptr);
  EXPECT_EQ(shape_of(spec, "decoder.block.5.layer.1.EncDecAttention.o.weight"),
            (shape{4096, 4096}));
  EXPECT_EQ(shape_of(spec, "encoder.block.2.layer.1.DenseReluDense.wi_1.weight"),
            (shape{10240, 4096}));
  EXPECT_EQ(shape_of(spec, "decoder.block.2.layer.2.DenseReluDense.wo.weight"),
            (shape{4096, 10240}));
  EXPECT_EQ(shape_of(spec, "decoder.final_layer_norm.weight"), (shape{4096}));
  EXPECT_EQ(shape_of(spec, "lm_head.weight"), (shape{32128, 4096}));
  EXPECT_EQ(unit_of(spec, "encoder.final_layer_norm")->kind, unit_kind::norm);
  EXPECT_EQ(spec.units.back().name, "lm_head");
  // The decoder is `text` (cross-attention, the logits); the encoder an extra stack that owns
  // the encoder.* units. Both are planned with eager attention and dropout.
  EXPECT_TRUE(spec.text.cross_attention);
  EXPECT_TRUE(spec.text.eager_attention);
  EXPECT_TRUE(spec.text.attention_dropout);
  EXPECT_TRUE(spec.text.gated_mlp);
  EXPECT_EQ(spec.text.activation_saved, 4u);  // gated-gelu runs gelu_new
  EXPECT_FALSE(spec.text.layer_norm);
  EXPECT_EQ(spec.text.vocab, 32128u);
  ASSERT_EQ(spec.extra.size(), 1u);
  EXPECT_EQ(spec.extra[0].unit_prefix, "encoder.");
  EXPECT_FALSE(spec.extra[0].cross_attention);
  EXPECT_EQ(spec.extra[0].vocab, 0u);
}

TEST(T5Family, DenseReluAndSeparateDecoderDepth) {
  const auto spec = parsed(R"({"model_type": "t5", "architectures": ["T5Model"], "d_ff": 64,
      "d_kv": 8, "d_model": 32, "num_heads": 4, "num_layers": 3, "num_decoder_layers": 2,
      "vocab_size": 100})");
  EXPECT_NE(find(spec, "encoder.block.2.layer.1.DenseReluDense.wi.weight"), nullptr);
  EXPECT_EQ(find(spec, "decoder.block.2.layer.0.SelfAttention.q.weight"), nullptr);
  EXPECT_EQ(spec.text.layers, 2u);
  EXPECT_EQ(spec.extra[0].layers, 3u);
  EXPECT_EQ(spec.text.vocab, 0u);  // T5Model: no lm_head, no logits
  EXPECT_FALSE(spec.text.gated_mlp);
}

TEST(T5Family, BadInputNamesTheField) {
  const std::string sizes = R"("d_ff": 64, "d_kv": 8, "d_model": 32, "num_heads": 4,)";
  EXPECT_EQ(first_line(error_of(R"({"model_type": "t5", )" + sizes +
                                R"( "num_layers": 0, "vocab_size": 100})")),
            "config.json:1:76: field \"num_layers\" must be a positive integer, got 0");
  EXPECT_EQ(error_of(R"({"model_type": "t5", "d_ff": 64, "num_layers": 2, "vocab_size": 100})"),
            "config.json: missing required field \"d_model\" (a positive integer)");
  EXPECT_EQ(first_line(error_of(
                R"({"model_type": "t5", )" + sizes +
                R"( "num_layers": 2, "vocab_size": 100, "feed_forward_proj": "gated-tanh"})")),
            "config.json:1:112: field \"feed_forward_proj\" is \"gated-tanh\": expected an "
            "activation (gelu, gelu_new, gelu_fast, gelu_pytorch_tanh, quick_gelu, relu, silu), "
            "alone or after \"gated-\"");
  EXPECT_EQ(
      first_line(error_of(R"({"model_type": "t5", "architectures": ["T5ForQuestionAnswering"]})")),
      "config.json:1:22: field \"architectures\" names T5ForQuestionAnswering, which "
      "vramscope does not read for model_type \"t5\" (its heads are not modelled); it reads "
      "T5ForConditionalGeneration, T5WithLMHeadModel, T5Model, T5EncoderModel");
}

}  // namespace
}  // namespace vramscope::model
