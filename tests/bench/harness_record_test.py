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
