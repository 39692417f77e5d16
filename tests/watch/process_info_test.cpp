#include <vramscope/watch/process_info.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using namespace std::string_literals;
using testing::temp_dir;

TEST(ProcessEnviron, ReadsTorchrunVariables) {
  const auto d = details_from_environ(
      "PATH=/usr/bin\0RANK=3\0LOCAL_RANK=1\0WORLD_SIZE=8\0CUDA_VISIBLE_DEVICES=0,1\0"
      "TORCHELASTIC_RUN_ID=x\0"s);
  EXPECT_TRUE(d.environ_readable);
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.local_rank, 1);
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(d.cuda_visible_devices, "0,1");
  EXPECT_EQ(d.framework, "torch");
}

TEST(ProcessEnviron, FallsBackToMpiAndSlurmVariables) {
  const auto d =
      details_from_environ("OMPI_COMM_WORLD_RANK=5\0SLURM_LOCALID=2\0SLURM_NTASKS=16\0"s);
  EXPECT_EQ(d.rank, 5);
  EXPECT_EQ(d.local_rank, 2);
  EXPECT_EQ(d.world_size, 16);
  EXPECT_FALSE(d.cuda_visible_devices.has_value());
}

TEST(ProcessEnviron, RecognisesJaxAndItsMemoryFraction) {
  const auto d = details_from_environ("XLA_PYTHON_CLIENT_MEM_FRACTION=0.9\0PYTORCH_X=1\0"s);
  EXPECT_EQ(d.framework, "jax");
  EXPECT_EQ(d.xla_mem_fraction, 0.9);
}

TEST(ProcessEnviron, IgnoresValuesThatAreNotNumbers) {
  const auto d =
      details_from_environ("RANK=zero\0XLA_PYTHON_CLIENT_MEM_FRACTION=most\0=x\0NOEQUALS\0"s);
  EXPECT_FALSE(d.rank.has_value());
  EXPECT_FALSE(d.xla_mem_fraction.has_value());
  EXPECT_EQ(d.framework, "jax");
}

TEST(ProcessMaps, TellsFrameworkFromLoadedLibraries) {
  EXPECT_EQ(framework_from_maps("7f00 r-xp /site-packages/jaxlib/xla_extension.so\n"), "jax");
  EXPECT_EQ(framework_from_maps("7f00 r-xp /site-packages/torch/lib/libtorch_cuda.so\n"), "torch");
  EXPECT_EQ(framework_from_maps("7f00 r-xp /usr/lib/libc.so.6\n"), "");
}

class FakeProc : public ::testing::Test {
 protected:
  void add(std::int64_t pid, const std::string& file, const std::string& content) {
    dir_.write(std::to_string(pid) + "/" + file, content);
  }
  temp_dir dir_;
};

TEST_F(FakeProc, ReadsDetailsAndComm) {
  add(42, "environ", "RANK=1\0WORLD_SIZE=2\0"s);
  add(42, "maps", "7f00 r-xp /torch/lib/libtorch_cuda.so\n");
  add(42, "comm", "pt_main_thread\n");
  const auto d = read_process_details(42, dir_.path());
  EXPECT_EQ(d.rank, 1);
  EXPECT_EQ(d.framework, "torch") << "from maps, since the environment does not tell";
  EXPECT_EQ(read_process_comm(42, dir_.path()), "pt_main_thread");
}

TEST_F(FakeProc, MissingProcessLeavesEverythingEmpty) {
  const auto d = read_process_details(7, dir_.path());
  EXPECT_FALSE(d.environ_readable);
  EXPECT_FALSE(d.rank.has_value());
  EXPECT_EQ(d.framework, "");
  EXPECT_EQ(read_process_comm(7, dir_.path()), "");
}

TEST_F(FakeProc, EnvironThatCannotBeReadIsNotACrash) {
  // open() works on a folder but read() fails, as read() of another user's environ does.
  add(44, "environ/x", "");
  const auto d = read_process_details(44, dir_.path());
  EXPECT_FALSE(d.environ_readable);
  EXPECT_FALSE(d.rank.has_value());
}

TEST_F(FakeProc, EnvironWithoutPermissionIsNotACrash) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  add(43, "environ", "RANK=1\0"s);
  ASSERT_EQ(::chmod(dir_.file("43/environ").c_str(), 0), 0);
  const auto d = read_process_details(43, dir_.path());
  EXPECT_FALSE(d.environ_readable);
  EXPECT_FALSE(d.rank.has_value());
}

TEST_F(FakeProc, FollowsParentsToAnAncestor) {
  add(100, "stat", "100 (torchrun) S 1 100 100 0 -1\n");
  add(200, "stat", "200 (python3 (a) b) S 100 100 100 0 -1\n");
  add(300, "stat", "300 (pt_main_thread) R 200 100 100 0 -1\n");
  add(400, "stat", "400 (other) S 1 400 400 0 -1\n");
  EXPECT_EQ(read_parent_pid(200, dir_.path()), 100);
  EXPECT_TRUE(descends_from(300, 100, dir_.path()));
  EXPECT_TRUE(descends_from(100, 100, dir_.path()));
  EXPECT_FALSE(descends_from(400, 100, dir_.path()));
  EXPECT_FALSE(descends_from(999, 100, dir_.path()));
}

TEST_F(FakeProc, MalformedStatHasNoParent) {
  add(5, "stat", "5 (x\n");
  EXPECT_FALSE(read_parent_pid(5, dir_.path()).has_value());
}

TEST(RealProc, ReadsThisProcess) {
  const auto pid = static_cast<std::int64_t>(::getpid());
  EXPECT_TRUE(read_process_details(pid).environ_readable);
  EXPECT_FALSE(read_process_comm(pid).empty());
  EXPECT_EQ(read_parent_pid(pid), static_cast<std::int64_t>(::getppid()));
}

}  // namespace
}  // namespace vramscope::watch
