// ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, the default, 4 off) and ASCEND_SLOG_PRINT_TO_STDOUT=1,
// checked on a child process per setting: which messages appear, and on which stream.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

// Runs the probe with the environment settings; returns what it wrote to the chosen stream.
std::string RunProbe(const std::string& env, bool read_stderr) {
  const std::string redirect = read_stderr ? " 2>&1 1>/dev/null" : " 2>/dev/null";
  const std::string command =
      "env -u ASCEND_GLOBAL_LOG_LEVEL -u ASCEND_SLOG_PRINT_TO_STDOUT " + env + " " + LOG_PROBE + redirect;
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    EXPECT_EQ(pclose(pipe), 0) << command;
  } else {
    ADD_FAILURE() << "cannot run " << command;
  }
  return output;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Logging, ErrorsGoToStderrByDefault) {
  const std::string err = RunProbe("", true);
  EXPECT_TRUE(Has(err, "[ERROR] aclnn-cpu: aclrtMalloc: aclInit has not been called")) << err;
  EXPECT_FALSE(Has(err, "[INFO]")) << err;
  EXPECT_EQ(RunProbe("", false), "probe done\n");
}

TEST(Logging, PrintToStdout) {
  const std::string out = RunProbe("ASCEND_SLOG_PRINT_TO_STDOUT=1", false);
  EXPECT_TRUE(Has(out, "[ERROR] aclnn-cpu: aclrtMalloc")) << out;
  EXPECT_EQ(RunProbe("ASCEND_SLOG_PRINT_TO_STDOUT=1", true), "");
}

int Count(const std::string& text, const std::string& part) {
  int count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(Logging, InfoLevelShowsTheTilingOfEveryCall) {
  const std::string err = RunProbe("ASCEND_GLOBAL_LOG_LEVEL=1", true);
  // The probe makes one phase one twice: logged twice (the aclnn cache keeps nothing at this level).
  EXPECT_EQ(Count(err, "[INFO] aclnn-cpu: aclnnMseLossBackwardGetWorkspaceSize: out [4] reduction mean tiling key"), 2)
      << err;
  EXPECT_TRUE(Has(err, "[ERROR]")) << err;
}

TEST(Logging, LevelFourSilencesEverything) {
  EXPECT_EQ(RunProbe("ASCEND_GLOBAL_LOG_LEVEL=4", true), "");
  EXPECT_EQ(RunProbe("ASCEND_GLOBAL_LOG_LEVEL=4 ASCEND_SLOG_PRINT_TO_STDOUT=1", false), "probe done\n");
}

}  // namespace
