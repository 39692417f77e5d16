"""vramscope.torch against a stand-in for torch (no torch here): the files it writes, and that
`vramscope explain --recorded` reads them. With torch and a GPU, test_real_torch runs too."""
import json
import shutil
import sys
import types

import pytest

import vramscope
import vramscope.torch as vt
from conftest import REPO

SNAPSHOT = REPO / "tests" / "data" / "observe" / "snapshot_cpython_p4.pickle"
STATS = json.loads((REPO / "tests" / "data" / "observe" / "stats_rank3.json").read_text())


class FakeOOM(RuntimeError):
    pass


def fake_torch(peaks):
    """A torch with cuda.memory_stats() returning STATS with the allocated peak taken from
    `peaks` in turn, a history recorder that logs its calls, and a snapshot dump that copies a
    real snapshot pickle."""
    calls = []
    it = iter(peaks)

    def memory_stats(device):
        stats = dict(STATS)
        stats["allocated_bytes.all.peak"] = next(it)
        return stats

    memory = types.SimpleNamespace(
        _record_memory_history=lambda **kw: calls.append(("history", kw)),
        _dump_snapshot=lambda path: (calls.append(("dump", path)), shutil.copy(SNAPSHOT, path)))
    cuda = types.SimpleNamespace(memory_stats=memory_stats, memory=memory,
                                 current_device=lambda: 3, OutOfMemoryError=FakeOOM)
    dist = types.SimpleNamespace(is_available=lambda: True, is_initialized=lambda: False)
    return types.SimpleNamespace(cuda=cuda, distributed=dist), calls


def test_import_does_not_import_torch():
    import os
    import subprocess

    code = ("import sys, vramscope.torch as vt; vt.MemoryRecorder('unused'); "
            "vt.hf_callback('unused'); vt.lightning_callback('unused'); "
            "sys.exit('torch' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


def test_recorder_writes_stats_per_step_and_snapshots_when_the_peak_grows(tmp_path):
    torch, calls = fake_torch([100, 300, 200, 300])
    with vt.MemoryRecorder(tmp_path, rank=3, torch_module=torch, min_snapshot_interval_s=0) as rec:
        rec.step()
        rec.step()
        rec.step()
    written = json.loads((tmp_path / "memory_stats_rank3.json").read_text())
    assert written["rank"] == 3 and written["device"] == 3
    assert written["stats"]["allocated_bytes.all.peak"] == 300  # the last step, on exit
    assert rec.peak_allocated == 300
    dumps = [c for c in calls if c[0] == "dump"]
    assert len(dumps) == 2  # peaks 100 and 300; 200 and the second 300 are no new peak
    assert (tmp_path / "snapshot_rank3.pickle").read_bytes() == SNAPSHOT.read_bytes()
    assert calls[0] == ("history", {"max_entries": 100_000})
    assert calls[-1] == ("history", {"enabled": None})
    assert not (tmp_path / "oom_rank3.log").exists()
    assert not list(tmp_path.glob("*.tmp"))


def test_oom_leaving_the_block_is_recorded_and_raised(tmp_path):
    torch, calls = fake_torch([100, 100, 100])
    message = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
               "79.15 GiB of which 1.25 GiB is free. Of the allocated memory 70.12 GiB is "
               "allocated by PyTorch, and 6.51 GiB is reserved by PyTorch but unallocated.")
    with pytest.raises(FakeOOM):
        with vt.MemoryRecorder(tmp_path, rank=0, snapshot="oom", torch_module=torch) as rec:
            rec.step()
            raise FakeOOM(message)
    log = (tmp_path / "oom_rank0.log").read_text()
    assert log.startswith("[rank0]: ")
    assert "Tried to allocate 2.00 GiB" in log
    assert (tmp_path / "snapshot_rank0.pickle").exists()
    assert len([c for c in calls if c[0] == "dump"]) == 1  # "oom" mode: only at the OOM


def test_explain_reads_the_recorded_folder(tmp_path):
    torch, _ = fake_torch([100, 100, 100])
    with pytest.raises(FakeOOM):
        with vt.MemoryRecorder(tmp_path, rank=0, torch_module=torch, min_snapshot_interval_s=0) as rec:
            rec.step()
            raise FakeOOM("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                          "capacity of 79.15 GiB of which 1.25 GiB is free.")
    from_folder = vramscope.explain(recorded=str(tmp_path))
    by_hand = vramscope.explain(stats=str(tmp_path / "memory_stats_rank0.json"),
                                oom=str(tmp_path / "oom_rank0.log"),
                                snapshot=str(tmp_path / "snapshot_rank0.pickle"))
    assert from_folder == by_hand
    assert from_folder  # the OOM and the stats give findings


def test_explain_refuses_a_folder_without_recordings(tmp_path):
    with pytest.raises(vramscope.VramscopeError) as e:
        vramscope.explain(recorded=str(tmp_path))
    assert "no recorded files here" in str(e.value)


def test_hf_callback_plans_records_and_logs_the_peak(tmp_path, caplog):
    torch, _ = fake_torch([2**30] * 10)
    cb = vt.hf_callback(str(tmp_path), {"model": "llama-3.1-8b"}, rank=0, torch_module=torch)
    caplog.set_level("INFO", logger="vramscope")
    cb.on_train_begin(None, None, None)
    assert cb.tracker.predicted is not None and "fits" in cb.tracker.predicted
    cb.on_step_end(None, None, None)
    cb.on_train_end(None, None, None)
    assert (tmp_path / "memory_stats_rank0.json").exists()
    assert "rank 0 peak allocated 1.00 GiB" in caplog.text
    assert "planned reserved" in caplog.text


def test_hf_callback_can_stop_a_job_that_does_not_fit(tmp_path):
    torch, _ = fake_torch([1])
    cb = vt.hf_callback(str(tmp_path), {"model": "llama-3.1-8b", "hardware": {"gpu": "T4"},
                                        "parallel": {"strategy": "ddp"}},
                        fail_if_not_fits=True, rank=0, torch_module=torch)
    with pytest.raises(RuntimeError, match="does NOT fit"):
        cb.on_train_begin(None, None, None)


def test_lightning_callback_records_an_oom(tmp_path):
    torch, _ = fake_torch([5] * 10)
    cb = vt.lightning_callback(str(tmp_path), rank=1, snapshot=None, torch_module=torch)
    cb.on_fit_start(None, None)
    cb.on_train_batch_end(None, None, None, None, 0)
    cb.on_exception(None, None, FakeOOM("CUDA out of memory. Tried to allocate 20.00 MiB."))
    assert (tmp_path / "oom_rank1.log").read_text().startswith("[rank1]: ")
    assert not (tmp_path / "snapshot_rank1.pickle").exists()


def cpu_only_torch():
    """A torch built without CUDA: cuda.is_available() is False and every other cuda call
    raises as torch's _lazy_init does."""
    def unavailable(*args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    memory = types.SimpleNamespace(_record_memory_history=unavailable, _dump_snapshot=unavailable)
    cuda = types.SimpleNamespace(is_available=lambda: False, memory_stats=unavailable,
                                 current_device=unavailable, memory=memory,
                                 OutOfMemoryError=FakeOOM)
    dist = types.SimpleNamespace(is_available=lambda: True, is_initialized=lambda: False)
    return types.SimpleNamespace(cuda=cuda, distributed=dist)


def test_without_cuda_the_recorder_and_callbacks_do_nothing_with_one_warning(tmp_path, caplog):
    torch = cpu_only_torch()
    vt._warned_no_cuda = False
    caplog.set_level("INFO", logger="vramscope")
    with pytest.warns(RuntimeWarning, match="no CUDA device") as warned:
        with vt.MemoryRecorder(tmp_path / "rec", rank=0, torch_module=torch) as rec:
            assert rec.step() == {}
        assert rec.disabled
        with pytest.raises(FakeOOM):  # an error of the script still leaves the block
            with vt.MemoryRecorder(tmp_path / "rec", rank=0, torch_module=torch):
                raise FakeOOM("CUDA out of memory. Tried to allocate 2.00 GiB.")
        cb = vt.hf_callback(str(tmp_path / "hf"), rank=0, torch_module=torch)
        cb.on_train_begin(None, None, None)
        cb.on_step_end(None, None, None)
        assert cb.on_train_end(None, None, None) is None
        lightning = vt.lightning_callback(str(tmp_path / "pl"), rank=0, torch_module=torch)
        lightning.on_fit_start(None, None)
        lightning.on_train_batch_end(None, None, None, None, 0)
        lightning.on_exception(None, None, FakeOOM("CUDA out of memory."))
        lightning.on_fit_end(None, None)
    assert len([w for w in warned if issubclass(w.category, RuntimeWarning)]) == 1
    assert not list(tmp_path.rglob("*.json")) and not list(tmp_path.rglob("*.log"))
    assert "nothing was recorded" in caplog.text


def test_real_torch(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    with vt.MemoryRecorder(tmp_path, min_snapshot_interval_s=0) as rec:
        x = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")
        rec.step()
        del x
    stats = json.loads(next(tmp_path.glob("memory_stats_rank*.json")).read_text())
    assert stats["stats"]["allocated_bytes.all.peak"] >= 64 * 2**20
    assert vramscope.explain(recorded=str(tmp_path)) is not None
