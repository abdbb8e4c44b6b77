//===- LaunchBinding.h - One launch bound to its op's roles -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CHECK_LAUNCHBINDING_H
#define LAMPORT_LIB_CHECK_LAUNCHBINDING_H

#include "lamport/Check/Simulator.h"

namespace lamport {
namespace check {

/// Kernel \p kernel of \p manifest with its buffer parameters bound to its
/// op's roles, its attributes read and every role's shape and dtype checked
/// for a TP group of \p tp whose steps carry up to \p stepTokens tokens.
/// Throws Error naming kernel, op, role and argument.
PlannedLaunch bindLaunch(const runtime::Manifest &manifest, int kernel, int tp,
                         int stepTokens);

} // namespace check
} // namespace lamport

#endif // LAMPORT_LIB_CHECK_LAUNCHBINDING_H
