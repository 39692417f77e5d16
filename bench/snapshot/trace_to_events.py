#!/usr/bin/env python3
"""Turns the allocator history of a PyTorch memory snapshot into an allocator event log.

    python3 trace_to_events.py SNAPSHOT.pickle OUT.csv [--device N]

The snapshot is what torch.cuda.memory._dump_snapshot() writes after
torch.cuda.memory._record_memory_history() (docs/formats/snapshot.md); no torch is needed to
read it. The log is the CSV the alloc module replays (`op,size,stream,handle`, see
include/vramscope/alloc/event_log.hpp): one `alloc` per trace `alloc` with the size torch
recorded, one `free` per `free_completed` (the moment the block returns to the allocator's
pools; `free_requested` only marks the user's free of a block still in use by another stream).
Frees of blocks allocated before the history started are dropped, since their allocations are
not in the log. A header comment records the source and the figures the replay is checked
against: the number of segments the history allocated and their bytes.
"""

import argparse
import os
import pickle
import sys


def convert(snapshot, device):
    traces = snapshot.get("device_traces")
    if not isinstance(traces, list) or device >= len(traces):
        raise ValueError(f"no device_traces[{device}] in the snapshot")
    handles, rows = {}, []
    next_handle = 0
    segments = segment_bytes = 0
    for index, entry in enumerate(traces[device]):
        action = entry.get("action")
        if action == "alloc":
            next_handle += 1
            handles[entry["addr"]] = next_handle
            rows.append(f"alloc,{entry['size']},{entry['stream']},{next_handle}")
        elif action == "free_completed":
            handle = handles.pop(entry["addr"], None)
            if handle is not None:
                rows.append(f"free,0,{entry['stream']},{handle}")
        elif action == "segment_alloc":
            segments += 1
            segment_bytes += entry["size"]
        elif action in ("segment_free", "segment_map", "segment_unmap", "oom", "empty_cache"):
            raise ValueError(f"trace entry {index}: {action} is not converted (a history with "
                             "released or expandable segments needs the allocator's own replay)")
    return rows, segments, segment_bytes


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("snapshot")
    p.add_argument("out")
    p.add_argument("--device", type=int, default=0)
    args = p.parse_args(argv)
    try:
        with open(args.snapshot, "rb") as f:
            snapshot = pickle.load(f)
        if not isinstance(snapshot, dict):
            raise ValueError("not a memory snapshot (expected a dict with device_traces)")
        rows, segments, segment_bytes = convert(snapshot, args.device)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, KeyError, TypeError) as error:
        print(f"{args.snapshot}: {error}", file=sys.stderr)
        return 2
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("op,size,stream,handle\n")
        f.write("\n".join(rows) + "\n")
    os.replace(tmp, args.out)  # written whole or not at all
    print(f"{args.out}: {len(rows)} events; the history allocated {segments} segments, "
          f"{segment_bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
