// Loads the real CUPTI injection library into the test process and calls its entry point, as
// the CUDA driver would. Without a GPU CUPTI cannot subscribe: the library must say so in the
// header of its trace file and go quiet, never crash. Built only with the library.
#include <vramscope/core/io.hpp>
#include <vramscope/trace/trace_launcher.hpp>

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "watch/watch_support.hpp"

namespace vramscope::trace {
namespace {

using watch::testing::scoped_env;
using watch::testing::temp_dir;

TEST(TraceInjection, WritesAHeaderAndNeverCrashes) {
  temp_dir dir;
  scoped_env out("VRAMSCOPE_TRACE_DIR", dir.path());
  scoped_env rank("RANK", "2");
  // Not closed: the library may have registered an exit handler.
  void* library = dlopen(VRAMSCOPE_TRACE_INJECTION, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
  ASSERT_NE(initialize, nullptr) << "InitializeInjection must be exported";
  EXPECT_EQ(initialize(), 1);
  EXPECT_EQ(initialize(), 1) << "a second call is a no-op";

  const std::string file = dir.file("trace-" + std::to_string(::getpid()) + ".jsonl");
  auto header = read_trace_header(file);
  ASSERT_TRUE(header) << "no complete header line in " << file;
  EXPECT_EQ(header->pid, ::getpid());
  auto text = read_file(file);
  ASSERT_TRUE(text);
  const auto first = nlohmann::json::parse(text->substr(0, text->find('\n')));
  EXPECT_EQ(first["rank"], 2);
  if (!header->ok) {
    // No GPU here: CUPTI could not subscribe, and the header says why.
    EXPECT_EQ(first["status"], "error");
    EXPECT_FALSE(header->message.empty());
    EXPECT_EQ(text->find('\n'), text->size() - 1) << "nothing after the header of a quiet library";
  }
}

}  // namespace
}  // namespace vramscope::trace
