#include <vramscope/cli/run.hpp>

#include "support/cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace vramscope::cli {
namespace {

using testing::cli_result;
using testing::invoke;

TEST(CliRun, HelpListsCommands) {
  auto r = invoke({"help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("inspect"), std::string::npos);
  EXPECT_NE(r.out.find("models"), std::string::npos);
}

TEST(CliRun, VersionPrintsVersion) {
  auto r = invoke({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "vramscope 0.1.0\n");
}

TEST(CliRun, UnknownCommandIsBadInput) {
  auto r = invoke({"plna"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'plna'"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::cli
