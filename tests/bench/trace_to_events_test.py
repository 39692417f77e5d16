"""bench/snapshot/trace_to_events.py: a snapshot's allocator history as an event log."""
import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None


def entry(action, addr, size, stream=0):
    return {"action": action, "addr": addr, "size": size, "stream": stream}


def run(snapshot_obj, raw=None):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "s.pickle"), os.path.join(tmp, "e.csv")
        with open(src, "wb") as f:
            f.write(raw if raw is not None else pickle.dumps(snapshot_obj))
        proc = subprocess.run([sys.executable, SCRIPT, src, out], capture_output=True, text=True)
        text = open(out).read() if os.path.exists(out) else None
        return proc.returncode, proc.stdout + proc.stderr, text, os.path.exists(out + ".tmp")


class TraceToEvents(unittest.TestCase):
    def test_allocs_and_completed_frees_become_events(self):
        trace = [entry("segment_alloc", 4096, 2 << 20), entry("alloc", 4096, 512),
                 entry("alloc", 4608, 1024), entry("free_requested", 4096, 512),
                 entry("free_completed", 4096, 512), entry("free_completed", 999, 512)]
        rc, log, text, _ = run({"segments": [], "device_traces": [trace]})
        self.assertEqual(rc, 0, log)
        self.assertEqual(text.splitlines(), ["op,size,stream,handle", "alloc,512,0,1",
                                             "alloc,1024,0,2", "free,0,0,1"])
        self.assertIn("1 segments", log)

    def test_released_segments_are_refused(self):
        trace = [entry("segment_alloc", 0, 2 << 20), entry("segment_free", 0, 2 << 20)]
        rc, log, text, tmp_left = run({"device_traces": [trace]})
        self.assertEqual(rc, 2)
        self.assertIn("segment_free", log)
        self.assertIsNone(text)
        self.assertFalse(tmp_left)

    def test_not_a_snapshot_names_the_file(self):
        for obj, raw in (([1, 2], None), ({"segments": []}, None), (None, b"not a pickle")):
            rc, log, text, _ = run(obj, raw)
            self.assertEqual(rc, 2, log)
            self.assertIn("s.pickle", log)
            self.assertIsNone(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    args, rest = parser.parse_known_args()
    SCRIPT = args.script
    unittest.main(argv=[sys.argv[0]] + rest)
