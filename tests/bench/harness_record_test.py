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


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--groundtruth", required=True)
    args, rest = parser.parse_known_args()
    sys.path.insert(0, os.path.abspath(args.groundtruth))
    unittest.main(argv=[sys.argv[0]] + rest)
