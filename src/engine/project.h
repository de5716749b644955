/*
 * project.h: the project status, and the four vendor deliverables whose
 * absence marks the whole project BLOCKED_COMPILER (workspace.md §4, runbook
 * §17): vendor.compiler_oci, vendor.compile_command, vendor.opset_matrix,
 * vendor.quant_tool.  Each missing one is a project-level blocked finding.
 */
#ifndef CALOPS_PROJECT_H
#define CALOPS_PROJECT_H

#include "engine/gate.h"

void	project_vendor_check(struct eval *ev);

#endif
