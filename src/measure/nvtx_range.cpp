#include "measure/nvtx_range.hpp"

#include <nvtx3/nvToolsExt.h>

namespace rooflinectl {
namespace {

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA(kNvtxDomain);
  return handle;
}

}  // namespace

NvtxRange::NvtxRange(const std::string& name) {
  if (name.empty()) return;
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name.c_str();
  nvtxDomainRangePushEx(domain(), &attributes);
  pushed_ = true;
}

NvtxRange::~NvtxRange() {
  if (pushed_) nvtxDomainRangePop(domain());
}

}  // namespace rooflinectl
