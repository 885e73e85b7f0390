// The SoCs this runtime can stand for, and the one it stands for (ACLNN_CPU_SOC_NAME, default
// Ascend910B3). Every figure is what ops-nn's tilings read on that part:
// - vector_cores: PlatformAscendC::GetCoreNumAiv(), which is the ini's vector_core_cnt when its
//   core_type_list is "CubeCore,VectorCore" and ai_core_cnt otherwise (the 310P parts, whose list is
//   "AICore,VectorCore") -- asc-devkit impl/utils/tiling/platform/platform_ascendc.cpp;
// - ub_bytes: GetCoreMemSize(UB), the ini's ub_size less 256 bytes on the parts whose tiling SoC
//   version is ASCEND910B (Ascend910B* and Ascend910_93*: the same file);
// - bf16: the aclnn layer's dtype list has BF16 on NpuArch 2201 and on the regbase arch 3510
//   (ops-nn common/inc/op_api/level2_base.h GetDtypeSupportListV2), not on 310P (2002).
// The ini files: hicann/runtime src/platform/platform_config/cann/<name>.ini (910B, 910_93, 310P)
// and cann-dev/<name>.ini (950): [version] Short_SoC_version and NpuArch, [SoCInfo] ai_core_cnt,
// vector_core_cnt and core_type_list, [AICoreSpec] ub_size.
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime_internal.h"

namespace aclcpu {
namespace {

constexpr int64_t kA2Ub = 196608 - 256;  // ub_size 196608, less the 256 bytes tilings leave to the system
constexpr int64_t k950Ub = 253952;
constexpr int64_t k310PUb = 262144;

constexpr SocProfile kProfiles[] = {
    {"Ascend910B1", SocFamily::kAscend910B, 2201, 48, kA2Ub, true},
    {"Ascend910B2", SocFamily::kAscend910B, 2201, 48, kA2Ub, true},
    {"Ascend910B2C", SocFamily::kAscend910B, 2201, 48, kA2Ub, true},
    {"Ascend910B3", SocFamily::kAscend910B, 2201, 40, kA2Ub, true},
    {"Ascend910B4", SocFamily::kAscend910B, 2201, 40, kA2Ub, true},
    {"Ascend910B4-1", SocFamily::kAscend910B, 2201, 40, kA2Ub, true},
    {"Ascend910_9391", SocFamily::kAscend910_93, 2201, 48, kA2Ub, true},
    {"Ascend910_9392", SocFamily::kAscend910_93, 2201, 48, kA2Ub, true},
    {"Ascend910_9381", SocFamily::kAscend910_93, 2201, 48, kA2Ub, true},
    {"Ascend910_9382", SocFamily::kAscend910_93, 2201, 48, kA2Ub, true},
    {"Ascend910_9372", SocFamily::kAscend910_93, 2201, 40, kA2Ub, true},
    {"Ascend910_9362", SocFamily::kAscend910_93, 2201, 40, kA2Ub, true},
    {"Ascend910_9363", SocFamily::kAscend910_93, 2201, 40, kA2Ub, true},
    {"Ascend950PR_9599", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_9591", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_9592", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_9595", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_9596", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_95A1", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950DT_95A2", SocFamily::kAscend950, 3510, 72, k950Ub, true},
    {"Ascend950PR_9589", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950PR_958b", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9581", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9581x", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9582", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9582x", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9583", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9584", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9585", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9586", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9587", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950DT_9588", SocFamily::kAscend950, 3510, 64, k950Ub, true},
    {"Ascend950PR_9579", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950PR_957b", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950PR_957bx", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950PR_957c", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950PR_957d", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9571", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9572", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9573", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9574", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9575", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9576", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9577", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_9578", SocFamily::kAscend950, 3510, 56, k950Ub, true},
    {"Ascend950DT_950x", SocFamily::kAscend950, 3510, 16, k950Ub, true},
    {"Ascend950DT_950y", SocFamily::kAscend950, 3510, 16, k950Ub, true},
    {"Ascend950PR_950z", SocFamily::kAscend950, 3510, 8, k950Ub, true},
    {"Ascend310P1", SocFamily::kAscend310P, 2002, 10, k310PUb, false},
    {"Ascend310P3", SocFamily::kAscend310P, 2002, 8, k310PUb, false},
    {"Ascend310P5", SocFamily::kAscend310P, 2002, 8, k310PUb, false},
    {"Ascend310P7", SocFamily::kAscend310P, 2002, 8, k310PUb, false},
};

const char kDefaultSocName[] = "Ascend910B3";

}  // namespace

const SocProfile* FindSocProfile(const char* name) {
  if (name == nullptr) return nullptr;
  for (const SocProfile& profile : kProfiles) {
    if (std::strcmp(profile.name, name) == 0) return &profile;
  }
  return nullptr;
}

const char* RequestedSocName() {
  static const std::string* name = [] {
    const char* chosen = std::getenv("ACLNN_CPU_SOC_NAME");
    return new std::string(chosen != nullptr && chosen[0] != '\0' ? chosen : kDefaultSocName);  // never freed
  }();
  return name->c_str();
}

const SocProfile* CurrentSocProfile() {
  static const SocProfile* profile = FindSocProfile(RequestedSocName());
  return profile;
}

std::string UnknownSocMessage(const char* api) {
  std::string message = std::string(api) + ": ACLNN_CPU_SOC_NAME \"" + RequestedSocName() +
                        "\" is not a SoC aclnn-cpu knows; the known ones are";
  const char* separator = " ";
  for (const SocProfile& profile : kProfiles) {
    message += separator;
    message += profile.name;
    separator = ", ";
  }
  return message;
}

const char* SocFamilyName(SocFamily family) {
  switch (family) {
    case SocFamily::kAscend910B:
      return "Ascend910B";
    case SocFamily::kAscend910_93:
      return "Ascend910_93";
    case SocFamily::kAscend950:
      return "Ascend950";
    case SocFamily::kAscend310P:
      return "Ascend310P";
  }
  return "?";
}

}  // namespace aclcpu
