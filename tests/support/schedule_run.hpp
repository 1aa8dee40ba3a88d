// Makes (and runs) an array's schedule under a tuning the test sets (a GPU's layouts on
// any device), and hands the schedule back for the test to inspect.
#pragma once

#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

namespace fusecl::test {

/// The schedule of y under tuning t, made but not run.
template <class T>
detail::Schedule schedule_with(const Array<T>& y, const detail::DeviceTuning& t) {
  const auto node = y.node();
  const detail::GraphLock lock{node.get()};
  return detail::make_schedule({node}, t);
}

/// The schedule of y under tuning t, made and run (y then holds its value);
/// a copy of the schedule as made is returned.
template <class T>
detail::Schedule run_with(const Array<T>& y, const detail::DeviceTuning& t) {
  const auto node = y.node();
  const detail::GraphLock lock{node.get()};
  detail::Schedule s = detail::make_schedule({node}, t);
  detail::Schedule copy = s;
  detail::run_schedule(*node->device, s);
  return copy;
}

/// The plan of a schedule that must be one kernel (a Catch2 REQUIRE).
inline codegen::KernelPlan only_plan(const detail::Schedule& s) {
  REQUIRE(s.kernel_count() == 1);
  return s.steps[0].kernel.plan;
}

/// The plan of a schedule that must be one row kernel (a Catch2 REQUIRE each).
inline codegen::KernelPlan one_row_kernel(const detail::Schedule& s) {
  REQUIRE(s.kernel_count() == 1);
  REQUIRE(s.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
  return s.steps[0].kernel.plan;
}

}  // namespace fusecl::test
