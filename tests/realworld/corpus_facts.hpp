#pragma once
// What a reader made of one real file, flattened to named facts ("gpu.0.total": 85899345920,
// "parallel.kind": "zero3") so that tests/data/realworld/expected.json can say, per file, which
// facts it must yield. A figure the file did not give is null, never 0.

#include <string>

#include <vramscope/import/importers.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/observe/observation.hpp>

#include <nlohmann/json.hpp>

namespace vramscope::testing {

/// Counts, versions, and each GPU, process, stats record and out-of-memory report, in order.
nlohmann::json observation_facts(const observe::observation& obs);

/// The resolved job as `job::to_json` writes it, flattened with dots, plus "format" and the
/// number of "notes".
nlohmann::json job_facts(const job::imported_job& imported);

/// model_type, the text stack's shape and the parameter count.
nlohmann::json model_facts(const model::model_spec& spec);

}  // namespace vramscope::testing
