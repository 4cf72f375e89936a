// SPDX-License-Identifier: MIT
// Recognising collective (NCCL / RCCL) GPU kernels by name, and the collective
// a kernel name stands for, for traces without "Collective name" args.
#pragma once

#include <string>
#include <string_view>

namespace syncscope {

// ncclKernel_* (NCCL < 2.19), ncclDevKernel_* (NCCL >= 2.19), RCCL's rccl*
// names (RCCL also uses the nccl* ones), with or without a leading "void ".
bool isCollectiveKernel(std::string_view kernelName);

// "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "sendrecv",
// "alltoall", "send", "recv" from a kernel name; "" when the name says nothing.
std::string collectiveFromKernel(std::string_view kernelName);

// True for point-to-point collectives ("send", "recv"): they pair two ranks.
inline bool isPointToPoint(std::string_view collective) { return collective == "send" || collective == "recv"; }

} // namespace syncscope
