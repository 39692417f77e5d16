"""vramscope's Python API: the same answers as the command line's --json, in process."""
import json
import sys
import warnings

import pytest

import vramscope
from conftest import REPO

EXAMPLE = REPO / "examples" / "llama-3.1-8b-fsdp2.yaml"


def test_plan_of_a_dict_has_the_plan_json_shape():
    p = vramscope.plan({"model": "llama-3.1-8b"})
    assert {"job", "fits", "ranks", "gpus"} <= set(p)  # docs/formats/plan-json.md; more may follow
    assert isinstance(p["fits"], bool)
    assert p["job"]["model"] == "llama-3.1-8b"
    rank0 = p["ranks"][0]
    assert set(rank0["peak"]) == {"allocated", "active", "reserved", "device"}
    assert rank0["peak"]["allocated"] > 10 * 2**30  # 8B parameters cannot fit in less
    assert len(p["ranks"]) == p["job"]["hardware"]["gpus_per_node"] * p["job"]["hardware"]["nodes"]


@pytest.mark.parametrize("nodes", [2, 5])
def test_classes_and_ranges_give_every_rank_and_gpu(nodes):
    # docs/formats/plan-json.md: ranks and GPUs from classes and ranges, with their own numbers.
    p = vramscope.plan(REPO / "examples" / "cases" / "5-ddp-gpu0" / "job.yaml",
                       hardware={"nodes": nodes})
    assert len(p["ranges"]) > len(p["classes"]) > 1  # GPU 0 of a node holds other ranks' shares
    # From three nodes alike on, a node's ranges are written once with a period.
    assert any("period" in r for r in p["ranges"]) == (nodes >= 3)
    ranges_only = {k: v for k, v in p.items() if k not in ("ranks", "gpus")}
    for k, (rank, gpu) in enumerate(zip(p["ranks"], p["gpus"])):
        assert vramscope.rank_of(ranges_only, k) == rank
        assert vramscope.gpu_of(ranges_only, k) == gpu
    assert vramscope.rank_of(ranges_only, len(p["ranks"])) is None


def test_a_job_of_many_ranks_has_ranges_instead_of_every_rank():
    big = vramscope.plan(EXAMPLE, hardware={"nodes": 1000, "gpus_per_node": 8})
    assert "ranks" not in big and "gpus" not in big and len(big["ranges"]) <= 3
    for k in (0, 1, 4097, 7999):
        one = vramscope.plan(EXAMPLE, rank=k, hardware={"nodes": 1000, "gpus_per_node": 8})
        assert one["ranks"] == [vramscope.rank_of(big, k)]
        assert vramscope.gpu_of(big, k)["index"] == k
    assert vramscope.rank_of(big, 8000) is None


def test_plan_says_fits_tight_or_does_not_fit_with_its_margin_and_need():
    fits = vramscope.plan(EXAMPLE)
    assert fits["state"] == "fits" and fits["margin"] >= 2**30 and fits["headroom"] > fits["margin"]
    tight = vramscope.plan(EXAMPLE, hardware={"margin": f"{fits['headroom'] + 2**20}B"})
    assert tight["state"] == "tight" and tight["fits"] and "run-to-run" in tight["margin_reason"]
    short = vramscope.plan(EXAMPLE, training={"micro_batch": 8})
    assert short["state"] == "does_not_fit" and not short["fits"]
    capacity = short["gpus"][0]["capacity"]
    assert short["whole_step_need"] == capacity + short["shortfall"] > capacity


def test_plan_of_a_path_equals_the_command_line():
    code, out, _ = vramscope.run("plan", str(EXAMPLE), "--json")
    assert code in (0, 1)
    assert vramscope.plan(EXAMPLE) == json.loads(out)


def test_keyword_overrides_act_like_set():
    base = vramscope.plan(EXAMPLE)
    nested = vramscope.plan(EXAMPLE, training={"seq_len": 512})
    dunder = vramscope.plan(EXAMPLE, training__seq_len=512)
    code, out, _ = vramscope.run("plan", str(EXAMPLE), "--json", "--set", "training.seq_len=512")
    assert nested == dunder == json.loads(out)
    assert nested["job"]["training"]["seq_len"] == 512
    assert nested["ranks"][0]["peak"]["allocated"] < base["ranks"][0]["peak"]["allocated"]


def test_dict_job_equals_the_same_yaml(tmp_path):
    job = {"model": "llama-3.1-8b", "parallel": {"strategy": "fsdp2"},
           "training": {"micro_batch": 1, "seq_len": 2048}}
    path = tmp_path / "job.yaml"
    path.write_text(json.dumps(job))
    assert vramscope.plan(job) == vramscope.plan(path)


def test_bad_key_raises_with_the_command_line_message():
    with pytest.raises(vramscope.VramscopeError) as e:
        vramscope.plan({"model": "llama-3.1-8b"}, parallel={"tpp": 2})
    assert e.value.code == 2
    assert 'unknown key "parallel.tpp" (did you mean "parallel.tp"?)' in str(e.value)
    assert str(e.value).startswith("vramscope plan: ")


def test_errors_name_a_dict_job_as_such():
    with pytest.raises(vramscope.VramscopeError) as e:
        vramscope.plan({"model": "llama-3.1-8b", "parallel": {"tp": "four"}})
    assert "<job dict>" in str(e.value)
    assert "vramscope-" not in str(e.value)  # no temporary path


def test_compare_varies_a_key():
    rows = vramscope.compare(EXAMPLE, vary={"training.seq_len": [1024, 2048]})
    code, out, _ = vramscope.run("compare", str(EXAMPLE), "--json", "--vary", "training.seq_len=1024,2048")
    assert rows == json.loads(out)


def test_fit_calls_the_fit_command():
    has_fit = "\n  fit " in vramscope.run("help")[1]
    if not has_fit:  # this build has no fit command: the error says so
        with pytest.raises(vramscope.VramscopeError, match="unknown command 'fit'"):
            vramscope.fit(EXAMPLE)
        return
    code, out, _ = vramscope.run("fit", str(EXAMPLE), "--json")
    assert vramscope.fit(EXAMPLE) == json.loads(out)


def test_inspect_and_models():
    names = [m["name"] for m in vramscope.models()]
    assert "llama-3.1-8b" in names
    inv = vramscope.inspect("llama-3.1-8b")
    code, out, _ = vramscope.run("inspect", "llama-3.1-8b", "--json")
    assert inv == json.loads(out)


def test_keys_lists_every_key_with_default():
    keys = {k["key"]: k for k in vramscope.keys()}
    assert keys["parallel.tp"]["default"] == "1"
    assert "H100-80GB" in keys["hardware.gpu"]["values"]


def test_explain_reads_stats_files():
    stats = REPO / "tests" / "data" / "observe" / "stats_rank3.json"
    findings = vramscope.explain(stats=str(stats))
    code, out, _ = vramscope.run("explain", "--stats", str(stats), "--json")
    assert findings == json.loads(out)


def test_runs_in_process():
    # The extension is loaded into this interpreter; no vramscope executable is needed.
    assert "vramscope._vramscope" in sys.modules
    assert vramscope.__version__ == vramscope.run("--version")[1].split()[1]


@pytest.mark.parametrize("call", [
    lambda: vramscope.plan(123),
    lambda: vramscope.plan({"model": "llama-3.1-8b"}, rank="0"),
    lambda: vramscope.plan({"model": "llama-3.1-8b"}, rank=True),
    lambda: vramscope.compare({"model": "llama-3.1-8b"}, vary=5),
    lambda: vramscope.compare({"model": "llama-3.1-8b"}, vary={"parallel.tp": 2}),
    lambda: vramscope.explain(smi=5),
    lambda: vramscope.explain(snapshot=["a", "b"]),
    lambda: vramscope.inspect(None),
])
def test_a_value_of_the_wrong_type_raises_vramscope_error(call):
    # Bad input of any kind raises VramscopeError (exit code 2), a wrong Python type included.
    with pytest.raises(vramscope.VramscopeError) as raised:
        call()
    assert raised.value.code == 2
    assert "expected" in str(raised.value)


def test_a_negative_rank_is_refused():
    with pytest.raises(vramscope.VramscopeError) as raised:
        vramscope.plan({"model": "llama-3.1-8b"}, rank=-1)
    assert raised.value.code == 2
