#include "doctor/oom_facts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "doctor/likelihood.hpp"

namespace vramscope::doctor {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool starts_any(std::string_view name, std::initializer_list<std::string_view> heads) {
  return std::any_of(heads.begin(), heads.end(), [&](std::string_view h) { return name.starts_with(h); });
}

bool has_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](std::string_view p) { return text.find(p) != std::string_view::npos; });
}

// One "n/total" pair read as progress (progress_of): tqdm's bar puts " [" after it and "%|"
// before it; mmcv's ProgressBar follows it with ", x task/s"
// (mmcv/utils/progressbar.py: "[{}] {}/{}, {:.1f} task/s, elapsed: {}s, ETA: {:5}s"); a trainer's
// counter names it "iter" or "step". `text` is lower case.
std::optional<progress_mark> read_progress(std::string_view text) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::optional<progress_mark> last;
  for (std::size_t slash = text.find('/'); slash != std::string_view::npos;
       slash = text.find('/', slash + 1)) {
    std::size_t a = slash;
    while (a > 0 && digit(text[a - 1])) --a;
    std::size_t b = slash + 1;
    while (b < text.size() && digit(text[b])) ++b;
    if (a == slash || b == slash + 1 || slash - a > 12 || b - slash - 1 > 12) continue;
    if (a > 0 && (std::isalnum(static_cast<unsigned char>(text[a - 1])) || text[a - 1] == '/' ||
                  text[a - 1] == '.'))
      continue;  // part of a path, a version or a word
    const std::string_view after = text.substr(b), before = text.substr(0, a);
    const bool tqdm = after.starts_with(" [") && before.find("%|") != std::string_view::npos;
    bool per_task = false;
    if (after.starts_with(", ")) {
      std::size_t k = 2;
      while (k < after.size() && (digit(after[k]) || after[k] == '.')) ++k;
      per_task = k > 2 && after.substr(k).starts_with(" task/s");
    }
    const auto named = [&](std::string_view word) {
      std::string_view head = before;
      while (!head.empty() && (head.back() == ' ' || head.back() == ':' || head.back() == '='))
        head.remove_suffix(1);
      return head.ends_with(word) &&
             (head.size() == word.size() ||
              !std::isalpha(static_cast<unsigned char>(head[head.size() - word.size() - 1])));
    };
    if (!tqdm && !per_task && !named("iter") && !named("step") && !named("iteration")) continue;
    progress_mark m;
    // The work a bar's description names, when it is not a step: the usual descriptions of the
    // frameworks' other bars (transformers' "Loading checkpoint shards", datasets' "Map",
    // "Downloading", "Tokenizing", "Saving", "Converting", "Processing", "Compiling").
    if (tqdm)
      m.other_work = has_any(
          before, {"load", "download", "fetch", "saving", "writing", "prepar", "process", "convert",
                   "map", "filter", "token", "shard", "build", "compil", "index"});
    m.done = std::stoll(std::string(text.substr(a, slash - a)));
    m.total = std::stoll(std::string(text.substr(slash + 1, b - slash - 1)));
    m.per_task = per_task;
    if (m.total == 0 || m.done > m.total) continue;
    last = m;
  }
  return last;
}

// The phase a progress bar's description names (tqdm's "desc: 35%|", Lightning's "Validation
// DataLoader 0:", "Sanity Checking DataLoader 0:", which runs validation_step): whole words only.
oom_phase phase_of_description(std::string_view desc) {
  oom_phase found = oom_phase::unknown;
  std::string word;
  const auto judge = [&](const std::string& w) {
    if (found == oom_phase::unknown &&
        (w == "eval" || w == "evaluating" || w == "evaluation" || w == "evaluate" ||
         w == "validation" || w == "validating" || w == "validate" || w == "valid" || w == "val" ||
         w == "test" || w == "testing" || w == "predict" || w == "predicting" ||
         w == "prediction" || w == "inference" || w == "sanity"))
      found = oom_phase::eval;
  };
  for (const char c : desc) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += c;
    } else {
      judge(word);
      word.clear();
    }
  }
  judge(word);
  return found;
}

// A log line that announces a phase in the words of the frameworks' own status lines:
// transformers' Trainer ("***** Running Evaluation *****", "***** Running Prediction *****",
// "Saving model checkpoint to ..."), and a script's "Saving checkpoint" or "Resuming from
// checkpoint". `text` is lower case. Loading a pretrained model ("Loading checkpoint shards") is
// not a resume and names nothing.
oom_phase phase_announced(std::string_view text) {
  // A status that opens with the phase's verb, as a program prints before its work
  // ("Predicting part 1 of 5 ...", "Evaluating...", "Validating on 500 images"): the line's
  // first word once a log record's level or bracketed prefix is set aside; prose that only
  // mentions the word later does not count.
  std::string_view head = text;
  for (bool stripped = true; stripped;) {
    stripped = false;
    while (!head.empty() && (head.front() == ' ' || head.front() == '\t')) head.remove_prefix(1);
    if (head.starts_with("[")) {
      if (const std::size_t close = head.find(']'); close != std::string_view::npos) {
        head.remove_prefix(close + 1);
        stripped = true;
      }
    }
    for (const std::string_view level : {"info:", "info -", "info ", "debug:", "debug "})
      if (head.starts_with(level)) {
        head.remove_prefix(level.size());
        stripped = true;
      }
  }
  std::size_t word_end = 0;
  while (word_end < head.size() && std::isalpha(static_cast<unsigned char>(head[word_end])))
    ++word_end;
  const std::string_view verb = head.substr(0, word_end);
  if (verb == "predicting" || verb == "evaluating" || verb == "validating" || verb == "testing" ||
      verb == "inferring")
    return oom_phase::eval;
  if (has_any(text,
              {"running evaluation", "running validation", "running prediction", "running test",
               "running inference", "start evaluation", "starting evaluation", "start validation",
               "starting validation", "start testing", "start inference", "starting inference"}))
    return oom_phase::eval;
  if (has_any(text, {"saving model checkpoint", "saving checkpoint", "saving model",
                     "saving the model", "saving state dict"}))
    return oom_phase::checkpoint_save;
  if (has_any(text, {"resuming from", "resuming training", "resume from checkpoint",
                     "resume training from"}))
    return oom_phase::checkpoint_resume;
  return oom_phase::unknown;
}

// The phase the log's last status before the error names: the last progress bar's description,
// or a line announcing the phase with no progress bar printed after it (a bar that names nothing,
// a training loop's, ends the search: the phase announced before it was over). Frames and code
// lines between the status and the error are skipped.
std::optional<std::pair<oom_phase, std::string>> last_status(
    const std::vector<std::string>& context) {
  for (auto line = context.rbegin(); line != context.rend(); ++line) {
    const std::size_t colon = line->find(": ");
    const std::string text = lower(colon == std::string::npos ? *line : line->substr(colon + 2));
    if (text.find("file \"") != std::string::npos || text.starts_with("traceback") || text == "...")
      continue;
    // A training step logged after the announcement ("{'loss': 0.51, ...}", "loss: 2.751"): the
    // announced phase was over.
    if (const std::size_t loss = text.find("loss");
        loss != std::string::npos &&
        (loss == 0 || !std::isalpha(static_cast<unsigned char>(text[loss - 1]))))
      return std::nullopt;
    if (const auto mark = read_progress(text)) {
      // The description: what precedes the bar's percentage (tqdm) or count.
      const std::size_t bar = text.find("%|");
      std::string_view desc(text);
      if (bar != std::string::npos) {
        std::size_t start = bar;
        while (start > 0 && (std::isdigit(static_cast<unsigned char>(text[start - 1])) ||
                             text[start - 1] == '.'))
          --start;
        desc = desc.substr(0, start);
      } else {
        desc = {};
      }
      const oom_phase phase = phase_of_description(desc);
      if (phase == oom_phase::unknown) return std::nullopt;
      return std::pair{phase, *line};
    }
    if (const oom_phase phase = phase_announced(text); phase != oom_phase::unknown)
      return std::pair{phase, *line};
  }
  return std::nullopt;
}

// One traceback frame of a context line (lower case, "LINE: text"): Python's `File "x.py", line
// 12, in evaluate`, or IPython's and Jupyter's `/path/x.py in evaluate(model, loader)` /
// `<ipython-input-5-1f2e> in <module>`, which print the function with its arguments. The function
// runs to the end of the line (Python's form) or to its "(" (IPython's).
struct frame_line {
  std::string_view function, file;
};
std::optional<frame_line> frame_of(std::string_view text) {
  const std::size_t in = text.rfind(", in ");
  const std::size_t file = text.find("file \"");
  if (in != std::string_view::npos && file != std::string_view::npos) {
    const std::size_t path = file + 6, close = text.find('"', path);
    return frame_line{text.substr(in + 5), close == std::string_view::npos
                                               ? std::string_view()
                                               : text.substr(path, close - path)};
  }
  // IPython: the text after "LINE: " starts with a path or "<...>", then " in name(".
  const std::size_t colon = text.find(": ");
  const std::string_view body = colon == std::string_view::npos ? text : text.substr(colon + 2);
  if (body.empty() || (body.front() != '/' && body.front() != '<' && body.front() != '~' &&
                       !(body.size() > 2 && body[1] == ':' && (body[2] == '\\' || body[2] == '/'))))
    return std::nullopt;
  const std::size_t at = body.find(" in ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view head = body.substr(0, at);
  if (head.find(' ') != std::string_view::npos && head.front() != '<')
    return std::nullopt;  // prose
  std::string_view function = body.substr(at + 4);
  const std::size_t paren = function.find('(');
  if (paren == std::string_view::npos && !function.starts_with("<module>")) return std::nullopt;
  if (paren != std::string_view::npos) function = function.substr(0, paren);
  if (function.empty()) return std::nullopt;
  return frame_line{function, head};
}

// The phase a Python traceback frame's function names, as the frameworks and the usual training
// scripts name them: transformers' Trainer (_save_checkpoint, evaluation_loop, prediction_step,
// _load_from_checkpoint), Lightning (validation_step, test_step), DeepSpeed (save_16bit_model,
// _zero3_consolidated_16bit_state_dict, load_checkpoint), torch.optim (_init_group creates Adam's
// state at the first step), and a script's own evaluate() / validate() / test() / predict().
oom_phase phase_of_function(std::string_view name) {
  if (name.find("save_for_backward") != std::string_view::npos || name.find("saved_tensor") != std::string_view::npos)
    return oom_phase::unknown;  // autograd's bookkeeping, in every backward
  if (has_any(name, {"load_checkpoint", "load_state_dict", "_load_from_checkpoint", "resume", "restore",
                     "load_optimizer", "_load_rng_state", "_cuda_deserialize"}))
    return oom_phase::checkpoint_resume;
  if (has_any(name, {"save", "consolidat", "gather_16bit", "full_state_dict", "get_model_state_dict"}) ||
      (name.find("state_dict") != std::string_view::npos && name.find("load") == std::string_view::npos))
    return oom_phase::checkpoint_save;
  // torch.distributed.checkpoint's _init_optim_state runs optim.step() with zero gradients to
  // create a state that does not exist yet (torch/distributed/checkpoint/state_dict.py): the first
  // step's allocation, even when a save called it.
  if (has_any(name, {"_init_group", "init_state", "initialize_optimizer_states", "_init_optim_state"}))
    return oom_phase::optimizer_state_init;
  if (starts_any(name,
                 {"eval", "_eval", "run_eval", "valid", "_valid", "val_", "_val_", "run_valid",
                  "test", "_test", "run_test", "predict", "_predict", "infer", "_infer"}) ||
      has_any(name, {"evaluat", "validat", "_eval_", "prediction_", "_inference", "inference_"}))
    return oom_phase::eval;
  return oom_phase::unknown;
}

// A frame that generates or samples outputs: transformers' generate() and its decoding loops
// (_sample, _greedy_search, _beam_search), a diffusion model's sampling loop (sample,
// p_sample_loop, ddim_sample), a GAN's or a script's sample_images. They run outside a training
// step in an inference script or a periodic sample grid, and inside one in an RL rollout or
// where the step samples, so place() takes them only with no training frame anywhere in the
// traceback. A diffusion step's q_sample (adding noise to the batch) is not sampling.
bool generates(std::string_view name) {
  return starts_any(
             name, {"generate", "_generate", "sample", "_sample", "greedy_search", "_greedy_search",
                    "beam_search", "_beam_search", "sampling", "_sampling"}) ||
         has_any(name, {"sample_loop", "ddim_sample", "plms_sample", "dpm_sample"});
}

// The phase a traceback's code line shows by the call it makes.
oom_phase phase_of_code(std::string_view code) {
  if (has_any(code, {"torch.load(", ".load_state_dict("})) return oom_phase::checkpoint_resume;
  if (has_any(code, {"torch.save(", ".save_checkpoint(", ".save_pretrained(", "full_state_dict", "state_dict"}))
    return oom_phase::checkpoint_save;  // loading was ruled out above
  if (has_any(code, {"zeros_like(p, memory_format", "state['exp_avg'] =", "state[\"exp_avg\"] =",
                     "state['exp_avg_sq'] =", "state[\"exp_avg_sq\"] ="}))
    return oom_phase::optimizer_state_init;
  return oom_phase::unknown;
}

// The phase the script a traceback starts in names (`File "tools/evaluate.py", line 94, in
// <module>`): the usual names of a repository's evaluation and inference entry points, beside
// its train.py: evaluate.py / eval.py (mmsegmentation, pytorch-hair-segmentation), test.py
// (mmdetection's and mmsegmentation's tools/test.py, CRAFT), val.py and detect.py (YOLOv5),
// predict.py, infer.py / inference.py, demo.py (DSFD, detectron2's demo/demo.py), sample.py
// (nanoGPT), generate.py (StyleGAN2, LLaMA's example scripts) and separate.py (a source-separation
// model's inference: Demucs's and Spleeter's `separate` command). Only the script's stem is read.
oom_phase phase_of_script(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  std::string_view stem = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!stem.ends_with(".py")) return oom_phase::unknown;
  stem.remove_suffix(3);
  if (stem == "val" || starts_any(stem, {"eval", "test", "val_", "valid", "predict", "infer",
                                         "demo", "detect", "sample", "generate", "separate"}))
    return oom_phase::eval;
  return oom_phase::unknown;
}

// The phase a frame's file names by the package it lies in: a directory of the program's
// evaluation code (detectron2's and mmdet's `evaluation/` packages, rf-detr's
// `rfdetr/evaluation/`, a repository's `eval/` or `validation/`), or a module of its own
// (`evaluator.py`, `eval_utils.py`), or an inference library's pipelines (diffusers/pipelines/,
// transformers/pipelines/). Its functions (matching, metrics) need not name the phase.
oom_phase phase_of_module(std::string_view path) {
  std::size_t start = 0;
  std::string_view parent;
  while (start < path.size()) {
    const std::size_t slash = path.find_first_of("/\\", start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    std::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (slash != std::string_view::npos) {
      if (part == "evaluation" || part == "eval" || part == "evaluator" || part == "evaluators" ||
          part == "validation")
        return oom_phase::eval;
      // The pipelines of diffusers and transformers run a trained model for inference (their
      // documentation: DiffusionPipeline "for inference", transformers' pipeline() "for
      // inference"); training uses the models, not the pipelines.
      if (part == "pipelines" && (parent == "diffusers" || parent == "transformers"))
        return oom_phase::eval;
      parent = part;
      continue;
    }
    if (!part.ends_with(".py")) break;
    part.remove_suffix(3);
    if (part == "eval" || part == "evaluator" || part == "evaluation" || part == "validation" ||
        starts_any(part, {"eval_", "evaluat"}))
      return oom_phase::eval;
  }
  return oom_phase::unknown;
}

// A frame of the training loop: the script's own train() / train_one_epoch() / fit(), a
// framework's training_step or _inner_training_loop, an optimizer's step(). Between the
// error and a script's `<module>` it says the script trains, whatever its name.
bool trains(std::string_view function) {
  return function.find("train") != std::string_view::npos ||
         starts_any(function, {"fit", "_fit"}) || function == "step" ||
         function.starts_with("step(");
}

// TensorFlow's tensor error names the failed tensor: "OOM when allocating tensor with
// shape[10000,32,28,28] and type float", "of shape [563354,256]", or with spaces for commas as
// pasted from some logs ("shape [1 160 192 224 48]"). Empty when it names none or the brackets
// hold anything but dimensions.
std::vector<std::int64_t> tensor_shape(std::string_view raw) {
  std::vector<std::int64_t> dims;
  std::size_t at = raw.find("shape[");
  if (at == std::string_view::npos) at = raw.find("shape [");
  if (at == std::string_view::npos) return dims;
  at = raw.find('[', at) + 1;
  const std::size_t end = raw.find(']', at);
  if (end == std::string_view::npos) return dims;
  std::int64_t value = -1;
  for (std::size_t i = at; i <= end; ++i) {
    const char c = raw[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
      if (value > (std::int64_t{1} << 40)) return {};
    } else if (c == ',' || c == ' ' || c == ']') {
      if (value >= 0)
        dims.push_back(value);
      else if (c == ',')
        return {};  // an empty dimension
      value = -1;
    } else {
      return {};
    }
  }
  return dims;
}

// The function a logging record names: loguru's default format prints "{name}:{function}:{line}"
// ("__main__:savemodel:34 - Error saving model: CUDA out of memory..."), the function whose
// handler logged the error. Empty when no token reads module:function:line.
std::string logged_function(std::string_view text) {
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && text[at] == ' ') ++at;
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view token = text.substr(at, end - at);
    at = end;
    const std::size_t c1 = token.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : token.find(':', c1 + 1);
    if (c2 == std::string_view::npos || c1 == 0 || c2 == c1 + 1 || c2 + 1 >= token.size()) continue;
    const std::string_view module = token.substr(0, c1), function = token.substr(c1 + 1, c2 - c1 - 1);
    const std::string_view line = token.substr(c2 + 1);
    if (!std::all_of(module.begin(), module.end(), [&](char c) { return ident(c) || c == '.'; }) ||
        !std::all_of(function.begin(), function.end(), ident) ||
        !std::isalpha(static_cast<unsigned char>(function.front())) ||
        !std::all_of(line.begin(), line.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    return std::string(function);
  }
  return {};
}

// The innermost frame that names a phase: a traceback's last lines are its deepest calls. A
// context line is "LINE: text"; a frame line reads `File "x.py", line 12, in evaluate`; a
// logging record may name the function that logged the error (logged_function). Failing those,
// the script at `<module>` (phase_of_script) when no frame below it trains and no backward ran,
// then the shape of the tensor TensorFlow failed to allocate: a batch of a whole evaluation
// split (likelihood::whole_split_min) at rank 3 or more, where a 2-D tensor that tall is an
// embedding table or its optimizer slots.
void place(oom_facts& f) {
  const auto& context = f.report->context;
  f.in_backward = std::any_of(context.begin(), context.end(), [](const std::string& line) {
    return has_any(line, {"run_backward", "autograd.backward(", ".backward(", "in backward"});
  });
  for (auto line = context.rbegin(); line != context.rend() && !f.progress; ++line) {
    const std::size_t colon = line->find(": ");
    if (auto mark =
            read_progress(lower(colon == std::string::npos ? *line : line->substr(colon + 2)))) {
      mark->line = *line;
      f.progress = std::move(mark);
    }
  }
  // The innermost frame: Module._apply's convert (Module.to / .cuda() / .half() of a whole model).
  for (auto line = context.rbegin(); line != context.rend(); ++line) {
    const std::string text = lower(*line);
    const auto frame = frame_of(text);
    if (!frame) continue;
    const std::string_view file = frame->file;
    if ((file.ends_with("nn/modules/module.py") || file.ends_with("nn\\modules\\module.py")) &&
        (frame->function == "convert" || frame->function == "_apply"))
      f.placing_model = *line;
    break;
  }
  bool training_frame = false, constructing = false;
  for (auto line = context.rbegin(); line != context.rend(); ++line) {
    const std::string text = lower(*line);
    oom_phase phase = oom_phase::unknown;
    phase_source source = phase_source::frame;
    if (const auto frame = frame_of(text)) {
      const std::string_view function = frame->function, frame_file = frame->file;
      phase = phase_of_function(function);
      // A frame that builds an object (a constructor, a framework's create_predictor /
      // build_model) below the script: the program was still being set up when it failed, so
      // the script's name says what it would have run, not what ran.
      if (phase == oom_phase::unknown && starts_any(function, {"__init__", "create_", "build_"}))
        constructing = true;
      if (phase == oom_phase::unknown && function.starts_with("<module>") && !training_frame &&
          !f.in_backward && !constructing) {
        phase = phase_of_script(frame_file);
        source = phase_source::script;
      } else if (phase == oom_phase::unknown && trains(function)) {
        training_frame = true;
      } else if (phase == oom_phase::unknown && !training_frame && !f.in_backward) {
        // A frame in the program's evaluation code, below any training frame.
        phase = phase_of_module(frame_file);
        source = phase_source::module;
        // A diffusers autoencoder decoding latents to images: what a pipeline does at its end
        // to give its output; diffusers' training scripts only encode (vae.encode) and decode in
        // their validation pipelines.
        if (phase == oom_phase::unknown &&
            (frame_file.find("diffusers/models/") != std::string_view::npos ||
             frame_file.find("diffusers\\models\\") != std::string_view::npos) &&
            (function == "decode" || function == "_decode" || function == "tiled_decode"))
          phase = oom_phase::eval;
      }
    } else {
      phase = phase_of_code(text);
    }
    if (phase == oom_phase::unknown) {
      // "LINE: text": the record's own text after the line number.
      source = phase_source::frame;
      const std::size_t colon = text.find(": ");
      if (const std::string function = logged_function(colon == std::string::npos ? text : text.substr(colon + 2));
          !function.empty())
        phase = phase_of_function(function);
    }
    if (phase != oom_phase::unknown) {
      f.phase = phase;
      f.placed_by = source;
      f.phase_line = *line;
      return;
    }
  }
  // The program's entry file when the traceback's outermost frame is a console script (pip's
  // wrapper for an entry point: a file without .py, "bin/NAME" or "Scripts/NAME", at
  // `<module>`), which only calls the function its package names: the next frame's file is the
  // script the user ran. And a command line pasted above the traceback ("$ python predict.py
  // ...", "python -m pkg.infer", "torchrun ... test.py"), the script it runs. Both name the
  // phase as phase_of_script reads a script's name, under the same guard: no training frame
  // and no backward anywhere in the traceback.
  bool trained = f.in_backward, script_framed = false;
  for (const auto& line : context)
    if (const std::string text = lower(line); const auto frame = frame_of(text)) {
      trained = trained || trains(frame->function);
      // The traceback's own script outranks a command pasted beside it.
      script_framed = script_framed ||
                      (frame->function.starts_with("<module>") && frame->file.ends_with(".py"));
    }
  if (!trained) {
    for (std::size_t k = 0; k + 1 < context.size(); ++k) {
      const std::string outer = lower(context[k]);
      const auto wrapper = frame_of(outer);
      if (!wrapper || !wrapper->function.starts_with("<module>") ||
          wrapper->file.ends_with(".py") || wrapper->file.empty())
        continue;
      for (std::size_t n = k + 1; n < context.size(); ++n) {
        const std::string inner = lower(context[n]);
        const auto entry = frame_of(inner);
        if (!entry) continue;
        if (phase_of_script(entry->file) == oom_phase::eval) {
          f.phase = oom_phase::eval;
          f.placed_by = phase_source::script;
          f.phase_line = context[n];
          return;
        }
        break;
      }
    }
    for (const auto& line : script_framed ? std::vector<std::string>{} : context) {
      const std::string text = lower(line);
      const std::size_t colon = text.find(": ");
      std::string_view body = colon == std::string::npos ? std::string_view(text)
                                                         : std::string_view(text).substr(colon + 2);
      if (body.starts_with("$ ") || body.starts_with("# ") || body.starts_with("> "))
        body.remove_prefix(2);
      if (!starts_any(body, {"python ", "python3 ", "torchrun ", "accelerate launch ", "deepspeed ",
                             "srun python", "cuda_visible_devices="}))
        continue;
      std::string script;
      std::size_t at = 0;
      bool module_next = false;
      while (at < body.size() && script.empty()) {
        while (at < body.size() && body[at] == ' ') ++at;
        std::size_t end = body.find(' ', at);
        if (end == std::string_view::npos) end = body.size();
        const std::string_view token = body.substr(at, end - at);
        at = end;
        if (module_next) {
          module_next = false;
          // A launcher's module (torch.distributed.run / launch) runs the script after it.
          if (!token.starts_with("torch.distributed"))
            script = std::string(token.substr(
                         token.rfind('.') == std::string_view::npos ? 0 : token.rfind('.') + 1)) +
                     ".py";
        } else if (token == "-m") {
          module_next = true;
        } else if (token.ends_with(".py")) {
          script = std::string(token);
        }
      }
      if (!script.empty() && phase_of_script(script) == oom_phase::eval) {
        f.phase = oom_phase::eval;
        f.placed_by = phase_source::script;
        f.phase_line = line;
        return;
      }
    }
  }
  // A frame that generates or samples (generates()), with no training frame anywhere in the
  // traceback and no backward: an inference script's or a sample grid's generation.
  const auto function_of = [](const std::string& text) -> std::optional<std::string_view> {
    if (const auto frame = frame_of(text)) return frame->function;
    return std::nullopt;
  };
  bool any_training_frame = false;
  for (const auto& line : context)
    if (const std::string text = lower(line); const auto function = function_of(text))
      any_training_frame = any_training_frame || trains(*function);
  if (!any_training_frame && !f.in_backward)
    for (auto line = context.rbegin(); line != context.rend(); ++line)
      if (const std::string text = lower(*line); const auto function = function_of(text))
        if (generates(*function)) {
          f.phase = oom_phase::eval;
          f.placed_by = phase_source::generation;
          f.phase_line = *line;
          return;
        }
  // The log's last status line names the phase (a progress bar's description, a framework's
  // announcement), with no training frame or backward below it for an evaluation and no
  // backward for a save.
  if (const auto status = last_status(context)) {
    const bool eval = status->first == oom_phase::eval;
    if (!f.in_backward && !(eval && training_frame)) {
      f.phase = status->first;
      f.placed_by = phase_source::status;
      f.phase_line = status->second;
      return;
    }
  }
  // mmcv's ProgressBar as the last progress before the error, with no training frame or backward
  // below it: mmcv's test loops (single_gpu_test, multi_gpu_test) print it per sample, where its
  // training loop logs "Epoch [e][i/n]" through its logger instead.
  if (f.progress && f.progress->per_task && !training_frame && !f.in_backward) {
    f.phase = oom_phase::eval;
    f.placed_by = phase_source::progress;
    f.phase_line = f.progress->line;
    return;
  }
  if (f.tensor_shape.size() >= 3 && f.tensor_shape.front() >= likelihood::whole_split_min) {
    f.phase = oom_phase::eval;
    f.placed_by = phase_source::batch_shape;
    f.phase_line = fmt::format("{}: {}", f.report->line, f.report->raw.substr(0, 160));
  }
}

}  // namespace

oom_phase phase_of_label(std::string_view label) {
  std::string word;
  oom_phase found = oom_phase::unknown;
  const auto judge = [&found](const std::string& w) {
    if (found != oom_phase::unknown || w.empty()) return;
    if (w == "load" || w == "loaded" || w == "loading" || w == "resume" || w == "resumed" || w == "resuming" ||
        w == "restore" || w == "restored" || w == "restoring")
      found = oom_phase::checkpoint_resume;
    else if (w == "save" || w == "saved" || w == "saving")
      found = oom_phase::checkpoint_save;
    else if (w == "eval" || w == "evaluation" || w == "evaluating" || w == "validation" || w == "validating" ||
             w == "inference" || w == "testing" || w == "predict" || w == "prediction")
      found = oom_phase::eval;
  };
  for (const char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      judge(word);
      word.clear();
    }
  }
  judge(word);
  return found;
}

std::optional<progress_mark> progress_of(std::string_view line) {
  return read_progress(lower(line));
}

bool oom_facts::at_first_iteration() const {
  return progress && !progress->other_work && progress->total > 1 && progress->done <= 1;
}

bool oom_facts::after_iterations() const {
  return progress && !progress->per_task && !progress->other_work && phase == oom_phase::unknown &&
         progress->done > 1 && progress->done < progress->total;
}

bool oom_facts::cache_covers() const {
  return requested && cached && free.value_or(0) + *cached >= *requested;
}

bool oom_facts::reserved_far_above_allocated() const {
  return reserved && allocated &&
         static_cast<double>(*reserved) >=
             likelihood::reserved_over_allocated_fragmented * static_cast<double>(*allocated);
}

bool oom_facts::cache_beyond_what_live_blocks_pin() const {
  namespace lk = likelihood;
  // PyTorch's small pool only (kSmallSize, kSmallBuffer); other allocators have none.
  if (allocator != observe::oom_allocator::torch_caching) return false;
  if (!allocated || !cached || *allocated >= lk::small_request_max) return false;
  const bytes blocks = std::max<bytes>(1, *allocated / lk::min_block);
  return *cached > blocks * lk::small_segment;
}

bytes oom_facts::outside_floor() const {
  return own_estimated ? likelihood::context_max + likelihood::nccl_buffers_max : likelihood::context_max;
}

bool oom_facts::outside_covers() const {
  return requested && outside && *outside > outside_floor() && *outside + free.value_or(0) >= *requested;
}

bool oom_facts::outside_within_nccl() const {
  return own_estimated && requested && outside && *outside > likelihood::context_max &&
         *outside <= outside_floor() && *outside + free.value_or(0) >= *requested;
}

bool oom_facts::pool_limit_counts_cache() const {
  return allocator == observe::oom_allocator::cupy_pool && capacity && reserved && requested &&
         *requested <= *capacity && *reserved + *requested > *capacity && *reserved > 0;
}

std::optional<bytes> oom_facts::bfc_room_in_limit() const {
  if (!report) return std::nullopt;
  const auto& r = *report;
  if (r.pool_held || !r.capacity || !r.in_use || !r.requested || *r.in_use >= *r.capacity)
    return std::nullopt;
  const bytes room = *r.capacity - *r.in_use;
  if (room < *r.requested) return std::nullopt;
  return room;
}

bool oom_facts::retry_kept_collected_blocks() const {
  // The reader keeps the message from its anchor on: CuPy 5's begins with its own words.
  return allocator == observe::oom_allocator::cupy_pool && report &&
         report->raw.starts_with("out of memory to allocate") && reserved && requested &&
         *reserved > *requested;
}

bool oom_facts::cache_figures() const {
  using observe::oom_allocator;
  switch (allocator) {
    case oom_allocator::torch_caching:
      return true;
    case oom_allocator::tf_bfc:
    case oom_allocator::xla_bfc:
    case oom_allocator::cudajl_pool:  // its reserve beyond live buffers, after a GC and a trim
      return cached.has_value();
    default:
      return false;
  }
}

std::string runtime_fix(observe::oom_allocator allocator, fix_kind kind) {
  using observe::oom_allocator;
  switch (allocator) {
    case oom_allocator::cupy_pool:
      // CuPy's user guide, "Memory Management" (docs.cupy.dev/en/stable/user_guide/memory.html):
      // MemoryPool.free_all_blocks() releases the unused cached blocks; set_limit(size=...) or
      // CUPY_GPU_MEMORY_LIMIT caps the pool; each process has its own pool on each device.
      switch (kind) {
        case fix_kind::release_cache:
          return "release the pool's cached free blocks before the large allocation "
                 "(cupy.get_default_memory_pool().free_all_blocks()), or raise the pool's limit "
                 "(set_limit / CUPY_GPU_MEMORY_LIMIT); a CuPy with cupy#1984 and cupy#7679 "
                 "releases "
                 "them itself before failing, also under a limit";
        case fix_kind::does_not_fit:
          return "smaller arrays at once (process the data in chunks) or a GPU with more memory; "
                 "drop "
                 "references to arrays no longer needed so the pool can reuse their blocks";
        case fix_kind::other_processes:
          return "one CuPy process per GPU (each holds its own pool and context on every device it "
                 "touches): select each process's device (cupy.cuda.Device(i).use() or "
                 "CUDA_VISIBLE_DEVICES per rank), or cap each pool with set_limit / "
                 "CUPY_GPU_MEMORY_LIMIT";
      }
      break;
    case oom_allocator::cudajl_pool:
      // CUDA.jl's "Memory management" page (cuda.juliagpu.org/stable/usage/memory/;
      // docs/src/usage/memory.md at JuliaGPU/CUDA.jl fd1008df7add): arrays are freed by Julia's
      // garbage collector once unreachable; the pool caches freed memory, CUDA.reclaim() returns
      // all of it; CUDA.unsafe_free!(a) frees an array at once without waiting for the collector;
      // CuIterator uploads data batch by batch and frees each batch; JULIA_CUDA_SOFT_MEMORY_LIMIT
      // / JULIA_CUDA_HARD_MEMORY_LIMIT bound what a process's pool takes when the GPU is shared.
      switch (kind) {
        case fix_kind::release_cache:
          return "free arrays as soon as they are done with (CUDA.unsafe_free!(a)) instead of "
                 "leaving them to Julia's garbage collector, and run GC.gc(true) then "
                 "CUDA.reclaim() where array sizes change so the pool gives back what it cached; "
                 "CUDA.jl collects and trims its pool once itself before it raises, so what stays "
                 "reserved is still referenced or could not be released";
        case fix_kind::does_not_fit:
          return "smaller arrays at once (a smaller batch, or the data fed in batches through "
                 "CuIterator, which frees each batch after use) or a GPU with more memory; drop "
                 "references to arrays no longer needed (or CUDA.unsafe_free! them) so the pool "
                 "can reuse their memory";
        case fix_kind::other_processes:
          return "one Julia process per GPU (CUDA.device!(i) or CUDA_VISIBLE_DEVICES per "
                 "process), or bound each process's pool with JULIA_CUDA_HARD_MEMORY_LIMIT (or "
                 "JULIA_CUDA_SOFT_MEMORY_LIMIT, which makes the pool release cached memory above "
                 "it)";
      }
      break;
    case oom_allocator::tf_bfc:
      // TensorFlow's GPU guide (tensorflow.org/guide/gpu, "Limiting GPU memory growth") and the
      // hint bfc_allocator.cc prints with its error: TF_GPU_ALLOCATOR=cuda_malloc_async for
      // fragmentation; tf.config.experimental.set_memory_growth or a logical device's
      // memory_limit so a process takes only what it needs.
      switch (kind) {
        case fix_kind::release_cache:
          // cudaMallocAsync came in TensorFlow 2.5 (built against CUDA 11.2, which it needs;
          // tensorflow#48545); before it the BFC pool was the only GPU allocator.
          return "TF_GPU_ALLOCATOR=cuda_malloc_async (the allocator TensorFlow's own message "
                 "suggests for fragmentation of its BFC pool; TensorFlow 2.5 and later); an older "
                 "release's pool stays fragmented until its process ends: restart from a "
                 "checkpoint in a fresh process, or leave headroom with a smaller batch";
        case fix_kind::does_not_fit:
          return "a smaller batch or input size (or a smaller model); set_memory_growth does not "
                 "add "
                 "memory, it only grows the pool on demand";
        case fix_kind::other_processes:
          return "stop the other processes holding the GPU, or make each TensorFlow process take "
                 "only "
                 "what it needs: tf.config.experimental.set_memory_growth(gpu, True) or a "
                 "memory_limit (tf.config.set_logical_device_configuration)";
      }
      break;
    case oom_allocator::xla_bfc:
    case oom_allocator::xla_client:
      // JAX's "GPU memory allocation" page
      // (jax.readthedocs.io/en/latest/gpu_memory_allocation.html):
      // XLA_PYTHON_CLIENT_PREALLOCATE=false / XLA_PYTHON_CLIENT_MEM_FRACTION size the pool, and
      // disabling preallocation can cause fragmentation; XLA_PYTHON_CLIENT_ALLOCATOR=platform
      // allocates exactly what is needed (slow, but no pool to fragment).
      switch (kind) {
        case fix_kind::release_cache:
          return "keep the preallocated pool (XLA_PYTHON_CLIENT_PREALLOCATE left on, a larger "
                 "XLA_PYTHON_CLIENT_MEM_FRACTION), or XLA_PYTHON_CLIENT_ALLOCATOR=platform, which "
                 "allocates exactly what is needed (slower) and leaves no pool to fragment";
        case fix_kind::does_not_fit:
          return "less memory per step (jax.checkpoint / remat, a smaller batch), or a larger "
                 "XLA_PYTHON_CLIENT_MEM_FRACTION when nothing else shares the GPU";
        case fix_kind::other_processes:
          return "one process per GPU (CUDA_VISIBLE_DEVICES per process), or "
                 "XLA_PYTHON_CLIENT_PREALLOCATE=false / a smaller XLA_PYTHON_CLIENT_MEM_FRACTION "
                 "in "
                 "every process sharing it";
      }
      break;
    case oom_allocator::torch_mps:
      // PyTorch's MPS environment variables
      // (pytorch.org/docs/stable/mps_environment_variables.html): PYTORCH_MPS_HIGH_WATERMARK_RATIO
      // is the hard limit's ratio of the device's recommended working set, 0.0 disabling it (the
      // message says so itself).
      switch (kind) {
        case fix_kind::release_cache:
          return "torch.mps.empty_cache() before the large allocation";
        case fix_kind::does_not_fit:
          return "a smaller batch or input, or a higher PYTORCH_MPS_HIGH_WATERMARK_RATIO (0.0 "
                 "lifts the "
                 "limit, at the risk of the whole system running out of memory)";
        case fix_kind::other_processes:
          return "close other applications using the GPU's unified memory";
      }
      break;
    default:
      break;
  }
  return {};
}

bool oom_facts::others_are_contexts() const {
  return !others.empty() && std::all_of(others.begin(), others.end(), [](const observe::oom_process& p) {
    return p.used <= likelihood::context_max;
  });
}

oom_facts facts_of(const observe::oom_report& report) {
  oom_facts f;
  f.report = &report;
  f.capacity = report.capacity;
  f.free = report.free;
  f.requested = report.requested;
  f.allocated = report.allocated_by_pytorch;
  f.reserved = report.reserved_by_pytorch;
  f.cached = report.reserved_unallocated;
  f.allocator = report.allocator;
  f.failure = report.origin == observe::oom_origin::context_creation
                  ? failure_kind::context_creation
              : !report.library.empty() ? failure_kind::library_workspace
                                        : failure_kind::device_allocation;
  f.library = report.library;
  f.runtime = report.runtime;
  f.message_cut = report.message_cut;
  if (report.tensorflow) f.tensor_shape = tensor_shape(report.raw);
  place(f);
  if (report.kind != observe::oom_kind::torch) {
    // Other pools, in the same terms: live buffers (BFC's InUse), what the pool holds from the
    // driver (BFC's regions, CuPy's total), its cache (the difference, where both are given) and
    // the room its limit leaves (BFC's "available bytes": limit less regions).
    if (!f.allocated) f.allocated = report.in_use;
    if (!f.reserved) f.reserved = report.pool_held;
    if (!f.cached && f.reserved && report.in_use && *f.reserved >= *report.in_use)
      f.cached = *f.reserved - *report.in_use;
    if (!f.free && f.capacity && f.reserved && f.allocator != observe::oom_allocator::cupy_pool)
      f.free = *f.capacity > *f.reserved ? *f.capacity - *f.reserved : 0;
    // CUDA.jl gives the device's total and what is in use on it, every process's together: this
    // process holds its pool's reserve plus one context at most, and the rest is held outside it.
    if (f.allocator == observe::oom_allocator::cudajl_pool && f.capacity && f.free && f.reserved) {
      f.own = *f.reserved + likelihood::context_max;
      f.own_estimated = true;
      const bytes used = *f.capacity - std::min(*f.capacity, *f.free);
      f.outside = used > *f.own ? used - *f.own : 0;
    }
    return f;
  }
  // torch >= 2.1 lists the GPU's processes from NVML: others as "Process P has X memory in use"
  // and itself as "this process has X" (c10/cuda/CUDACachingAllocator.cpp,
  // reportProcessMemoryInfo). Inside a container NVML's pids are the host's, so the process finds
  // no entry of its own and lists itself under its host pid: then the listed process closest
  // above its cache is taken for this one.
  std::optional<std::size_t> self;
  for (const auto& p : report.processes)
    if (!p.pid) f.own = p.used;
  if (!f.own && f.reserved)
    for (std::size_t i = 0; i < report.processes.size(); ++i) {
      const auto& p = report.processes[i];
      if (p.used >= *f.reserved && (!self || p.used < report.processes[*self].used)) self = i;
    }
  for (std::size_t i = 0; i < report.processes.size(); ++i)
    if (report.processes[i].pid && i != self) f.others.push_back(report.processes[i]);
  if (self) f.own = report.processes[*self].used;
  if (!f.own && f.reserved) {
    // No "this process has": the cache plus at most one context (the generous bound keeps
    // `outside` from blaming others for this process's own context).
    f.own = *f.reserved + likelihood::context_max;
    f.own_estimated = true;
  } else if (!f.own && report.malloc_async && f.allocated) {
    // cudaMallocAsync gives no reserved figure. The driver's pool keeps what PyTorch frees
    // (PyTorch sets its release threshold to the maximum) but reuses it for later requests
    // (cudaMemPoolReuse* enabled; CUDAMallocAsyncAllocator.cpp, lazy_init_device), so the
    // process's own memory is taken as its tensors plus one context, an estimate.
    f.own = *f.allocated + likelihood::context_max;
    f.own_estimated = true;
  }
  if (f.capacity && f.own) {
    const bytes used = *f.capacity - std::min(*f.capacity, f.free.value_or(0));
    f.outside = used > *f.own ? used - *f.own : 0;
  }
  return f;
}

std::string where(const observe::oom_report& report) {
  return fmt::format("the out-of-memory message at line {}{}", report.line,
                     report.gpu ? fmt::format(" (GPU {})", *report.gpu) : "");
}

}  // namespace vramscope::doctor
