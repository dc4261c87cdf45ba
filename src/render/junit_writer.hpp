// JUnit XML of a CompareResult, the format CI test reporters read (GitLab's junit report,
// Jenkins' junit step, GitHub test-reporter actions): one <testcase> per point. Pure host code;
// only reads the result.
#pragma once

#include <string>

#include "compare/compare.hpp"

namespace rooflinectl {

/// One <testsuite name="rooflinectl compare"> inside <testsuites>, one <testcase> per point
/// (classname = operator, name = PointKey::shape_label(), so a case keeps its name across kernel
/// versions). A regression (slower, failed) is a <failure>; an inconclusive or removed point is a
/// <failure> with CompareOptions::strict and <skipped> without; added, same and faster points
/// pass. Every failure and skip carries the verdict's reason; the warnings go to <system-out>.
/// The counts in the attributes match the elements. Text is XML-escaped (& < > " ').
std::string format_compare_junit(const CompareResult& result);

}  // namespace rooflinectl
