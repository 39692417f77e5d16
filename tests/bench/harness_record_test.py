"""What the harness records when it cannot run a job's setting as written (no torch needed).

A measurement must be scored against the job that ran: when Liger's kernels are missing, the
model runs with transformers' own kernels and loss, and the recorded job has to say so.
"""
import argparse
import os
import sys
import unittest


class RanInstead(unittest.TestCase):
    def setUp(self):
        import measure_torch
        import torch_build
        self.measure_torch, self.torch_build = measure_torch, torch_build

    def settings(self, loss):
        return {"training.liger_kernels": True, "training.loss": loss}

    def test_missing_liger_rewrites_kernels_and_fused_loss(self):
        notes = self.measure_torch.Notes()
        s = self.settings("liger_fused")
        self.torch_build.run_without_liger(s, notes, "liger_kernel unavailable (test)")
        job = {"model": "llama-3.1-8b", "training": {"liger_kernels": True, "loss": "liger_fused"}}
        changed = self.measure_torch.record_what_ran(job, s, notes.ran_instead)
        self.assertEqual(job["training"], {"liger_kernels": False, "loss": "hf"})
        self.assertEqual(changed, ["training.liger_kernels=false", 'training.loss="hf"'])
        self.assertFalse(s["training.liger_kernels"])
        self.assertEqual(notes.not_applied, [])
        self.assertIn("ran without Liger", notes.remarks[0])

    def test_other_losses_are_kept(self):
        notes = self.measure_torch.Notes()
        self.torch_build.run_without_liger(self.settings("chunked"), notes, "test")
        self.assertEqual(notes.ran_instead, {"training.liger_kernels": False})

    def test_a_section_written_as_a_scalar_becomes_a_map(self):
        job = {"training": None}
        self.measure_torch.record_what_ran(job, {}, {"training.loss": "hf"})
        self.assertEqual(job["training"], {"loss": "hf"})


class FakeTorch:
    """The two calls cap_memory makes, on a GPU of `total` bytes."""

    def __init__(self, total):
        self.total, self.fraction = total, None
        self.cuda = self

    def get_device_properties(self, index):
        return argparse.Namespace(total_memory=self.total)

    def set_per_process_memory_fraction(self, fraction, index):
        self.fraction = fraction


class FakeProbe:
    def read(self):
        return 512 << 20, None  # what the process holds already (its CUDA context)


class CapMemory(unittest.TestCase):
    H100 = 85520809984        # NVML's total of an H100 80GB HBM3, the job's capacity
    H100_TORCH = 85017493504  # torch's total of the same GPU (the driver's share excluded)
    H200_TORCH = 150754820096

    def cap(self, torch_total, allow_smaller=False):
        import measure_torch
        fake = FakeTorch(torch_total)
        saved = sys.modules.get("torch")
        sys.modules["torch"] = fake
        try:
            limit = measure_torch.cap_memory({"hardware.gpu_memory": self.H100}, FakeProbe(),
                                             allow_smaller)
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        return limit, fake.fraction

    def test_the_jobs_own_gpu_is_not_capped(self):
        self.assertEqual(self.cap(self.H100_TORCH), (None, None))

    def test_a_larger_gpu_is_capped_to_the_jobs_capacity(self):
        limit, fraction = self.cap(self.H200_TORCH)
        self.assertEqual(limit, self.H100 - (512 << 20))
        self.assertAlmostEqual(fraction, limit / self.H200_TORCH)

    def test_a_smaller_gpu_is_skipped_unless_allowed(self):
        import torch_build
        with self.assertRaises(torch_build.Skip):
            self.cap(self.H100 // 2)
        self.assertEqual(self.cap(self.H100 // 2, allow_smaller=True), (None, None))


class FakeLogits:
    """Logits of shape (batch, seq, vocab) that record what the loss did with them."""

    def __init__(self, shape, dtype="bf16", calls=None):
        self.shape, self.dtype, self.calls = shape, dtype, calls if calls is not None else []

    def flatten(self, start, end):
        self.calls.append(("flatten", start, end))
        return FakeLogits((self.shape[0] * self.shape[1],) + tuple(self.shape[2:]), self.dtype,
                          self.calls)

    def float(self):
        self.calls.append(("float",))
        return FakeLogits(self.shape, "fp32", self.calls)


class FakeModel:
    def __init__(self):
        self.kwargs = None

    def __call__(self, **kwargs):
        self.kwargs = kwargs
        logits = FakeLogits((2, 8, 100))
        return argparse.Namespace(loss="the model's own loss", logits=logits)


class TrainStepLoss(unittest.TestCase):
    """Which loss the step computes, and where (no torch: a fake cross_entropy)."""

    def settings(self, loss, tp=1, loss_parallel="default", tp_head=True):
        return {"training.loss": loss, "parallel.tp": tp, "parallel.loss_parallel": loss_parallel,
                "parallel.tp_head": tp_head, "parallel.strategy": "fsdp2"}

    def test_transformers_loss_is_the_models_own(self):
        import torch_wrap
        model = FakeModel()
        batch = {"input_ids": "ids", "labels": "ids"}
        self.assertEqual(torch_wrap.forward_loss(self.settings("hf"), model, batch),
                         "the model's own loss")
        self.assertIn("labels", model.kwargs)

    def test_torchtitan_loss_runs_on_the_flattened_fp32_logits(self):
        import types
        import torch_wrap
        seen = {}

        def cross_entropy(pred, labels):
            seen["pred"], seen["labels"] = pred, labels
            return "torchtitan's loss"

        fake = types.ModuleType("torch")
        fake.nn = types.SimpleNamespace(functional=types.SimpleNamespace(cross_entropy=cross_entropy))
        saved = sys.modules.get("torch")
        sys.modules["torch"] = fake
        try:
            model = FakeModel()
            labels = FakeLogits((2, 8))
            batch = {"input_ids": "ids", "position_ids": "pos", "labels": labels}
            loss = torch_wrap.forward_loss(self.settings("torchtitan"), model, batch)
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        self.assertEqual(loss, "torchtitan's loss")
        self.assertEqual(model.kwargs, {"input_ids": "ids", "position_ids": "pos"})  # no labels
        self.assertEqual(seen["pred"].shape, (16, 100))
        self.assertEqual(seen["pred"].dtype, "fp32")
        self.assertEqual(seen["pred"].calls, [("flatten", 0, 1), ("float",)])  # flatten first
        self.assertEqual(seen["labels"].shape, (16,))

    def test_vocab_parallel_loss_follows_the_job_module(self):
        import jobspec
        vp = jobspec.vocab_parallel_loss
        self.assertTrue(vp(self.settings("torchtitan", tp=4)))       # torchtitan's default
        self.assertFalse(vp(self.settings("torchtitan", tp=1)))      # nothing to shard
        self.assertFalse(vp(self.settings("hf", tp=4)))              # gathered logits
        self.assertTrue(vp(self.settings("hf", tp=4, loss_parallel=True)))
        self.assertFalse(vp(self.settings("torchtitan", tp=4, loss_parallel=False)))
        self.assertFalse(vp(self.settings("torchtitan", tp=4, tp_head=False)))
        megatron = dict(self.settings("hf", tp=2), **{"parallel.strategy": "megatron"})
        self.assertTrue(vp(megatron))

    def test_no_loss_parallel_context_without_vocabulary_shards(self):
        import contextlib
        import torch_wrap
        self.assertIsInstance(torch_wrap.loss_context(self.settings("torchtitan", tp=1)),
                              contextlib.nullcontext)


class Float8(unittest.TestCase):
    """precision.float8 in the harness: the job's recipe reaches torchao (a fake one here)."""

    def fake_torchao(self):
        import types
        calls = {}

        class Config:
            def __init__(self, **kwargs):
                self.kwargs = kwargs

            @classmethod
            def from_recipe_name(cls, name):
                return cls(recipe=name)

        def convert(model, config, module_filter_fn):
            calls["config"], calls["filter"] = config, module_filter_fn

        float8 = types.ModuleType("torchao.float8")
        float8.Float8LinearConfig, float8.convert_to_float8_training = Config, convert
        torchao = types.ModuleType("torchao")
        torchao.float8 = float8
        return {"torchao": torchao, "torchao.float8": float8}, calls

    def run_apply(self, recipe, all_gather=False):
        import torch_build
        modules, calls = self.fake_torchao()
        saved = {name: sys.modules.get(name) for name in modules}
        sys.modules.update(modules)
        try:
            torch_build.apply_float8({"precision.float8": recipe,
                                      "parallel.float8_all_gather": all_gather}, "model", None)
        finally:
            for name, module in saved.items():
                if module is None:
                    del sys.modules[name]
                else:
                    sys.modules[name] = module
        return calls

    def test_tensorwise_passes_the_float8_all_gather(self):
        calls = self.run_apply("tensorwise", all_gather=True)
        self.assertEqual(calls["config"].kwargs, {"enable_fsdp_float8_all_gather": True})

    def test_rowwise_recipes_by_name(self):
        self.assertEqual(self.run_apply("rowwise_with_gw_hp")["config"].kwargs,
                         {"recipe": "rowwise_with_gw_hp"})

    def test_the_head_and_odd_shapes_stay_high_precision(self):
        keep = self.run_apply("tensorwise")["filter"]
        linear = argparse.Namespace(in_features=2048, out_features=512)
        self.assertTrue(keep(linear, "model.layers.0.self_attn.q_proj"))
        self.assertFalse(keep(linear, "lm_head"))
        self.assertFalse(keep(argparse.Namespace(in_features=2048, out_features=100), "x.proj"))

    def test_none_converts_nothing(self):
        self.assertEqual(self.run_apply("none"), {})

    def test_the_job_reads_true_as_tensorwise(self):
        import jobspec
        s = jobspec.resolve({"precision": {"float8": True}})
        self.assertEqual(s["precision.float8"], "tensorwise")
        self.assertEqual(jobspec.resolve({})["precision.float8"], "none")


class CompiledStep(unittest.TestCase):
    """What a JAX line records of XLA's own account of the step it compiled."""

    def test_keeps_the_byte_counts_the_analysis_has(self):
        import measure_jax
        analysis = argparse.Namespace(temp_size_in_bytes=15 << 30, argument_size_in_bytes=5 << 30,
                                      output_size_in_bytes=5 << 30, alias_size_in_bytes=5 << 30,
                                      generated_code_size_in_bytes=1 << 20,
                                      serialized_hlo_proto=b"...")
        record = measure_jax.memory_analysis_record(analysis)
        self.assertEqual(record["temp_size_in_bytes"], 15 << 30)
        self.assertEqual(record["alias_size_in_bytes"], 5 << 30)
        self.assertNotIn("host_temp_size_in_bytes", record)  # an older jaxlib has none
        self.assertNotIn("serialized_hlo_proto", record)

    def test_says_when_there_is_none(self):
        import measure_jax
        self.assertIn("error", measure_jax.memory_analysis_record(None))

    def test_snapshots_of_a_jax_case_are_its_compiled_hlo(self):
        import run_matrix
        args = run_matrix.parse_args(["bench/matrices/full.yaml", "--snapshots", "/tmp/histories"])
        jax_run = {"name": "jax-prealloc-off", "rank": 0, "set": [],
                   "job": os.path.join(run_matrix.REPO, "bench/matrices/jobs/jax-small.yaml")}
        cmd = run_matrix.command(args, jax_run)
        self.assertEqual(cmd[cmd.index("--dump-hlo") + 1], "/tmp/histories/jax-prealloc-off.hlo.txt")
        self.assertNotIn("--snapshot", cmd)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--groundtruth", required=True)
    args, rest = parser.parse_known_args()
    sys.path.insert(0, os.path.abspath(args.groundtruth))
    unittest.main(argv=[sys.argv[0]] + rest)
