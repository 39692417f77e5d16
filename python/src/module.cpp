// The extension module of the vramscope Python package: vramscope::cli::run in process, with
// its two streams captured. The package (python/vramscope/) turns jobs given as dicts, paths
// or keywords into arguments and the JSON output back into Python objects, so every function
// returns exactly what the matching command prints with --json.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vramscope/cli/run.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// The GIL is released while C++ runs: a plan touches no Python object, and a long compare
// should not stop other Python threads.
py::tuple run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  int code = 0;
  {
    py::gil_scoped_release unlocked;
    code = vramscope::cli::run(args, out, err);
  }
  return py::make_tuple(code, py::bytes(out.str()), py::bytes(err.str()));
}

}  // namespace

PYBIND11_MODULE(_vramscope, m) {
  m.doc() = "vramscope's command-line library, called in process";
  m.def("run", &run, py::arg("args"),
        "Runs `vramscope ARGS...` in process. Returns (exit code, stdout bytes, stderr bytes).");
  m.attr("__version__") = VRAMSCOPE_VERSION;
}
