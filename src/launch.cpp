#include "src/launch.hpp"

#include "codegen/divider.hpp"
#include "codegen/render.hpp"
#include "fusecl/error.hpp"
#include "runtime/env_settings.hpp"
#include "src/device_state.hpp"
#include "src/tuning.hpp"

#include <algorithm>
#include <cstdlib>

namespace fusecl::detail {

std::string build_options(const rt::Runtime& rt) {
  const auto& info = rt::info(rt);
  std::string o = "-cl-std=CL1.2";
  // No warnings: generated code compares a value with itself where the user
  // does (x != x is a NaN test), and a compiler that prints to the terminal
  // (PoCL: "2 warnings generated.") would write into the user's stderr.
  // Build errors are still reported, with the log and the source.
  o += " -w";
  // IEEE-exact division and square root in float32, as NumPy has them.
  if (info.correctly_rounded_sqrt) o += " -cl-fp32-correctly-rounded-divide-sqrt";
  // float32 sin and cos vectors in float64 on CPUs (codegen/helpers.cpp,
  // fp64_trig): within 0.501 ulp and several times faster than PoCL's own
  // (FUSECL_FP64_TRIG=0 keeps the built-ins, to compare). GPUs keep theirs:
  // float64 is slow on most of them, and their sin is fast.
  static const bool fp64_trig = rt::switch_setting("FUSECL_FP64_TRIG", true);
  if (fp64_trig && info.type == "CPU" && info.fp64) o += " -DFCL_TRIG_FP64";
  // Kernels whose best loop form differs between CPUs and GPUs (render_tiled.cpp).
  if (info.type == "CPU") o += " -DFCL_CPU";
  if (const char* extra = std::getenv("FUSECL_BUILD_OPTIONS"); extra && *extra) o += std::string(" ") + extra;
  return o;
}

DeviceTuning default_tuning(const DeviceInfo& info) {
  const bool cpu = info.type == "CPU";
  DeviceTuning d;
  // The knobs tuning.hpp measures start at the device's defaults (what they
  // are and why: tuning_file.cpp's default_values).
  const rt::TunedValues defaults = rt::default_values(info);
  for (std::size_t k = 0; k < rt::knob_count; ++k) set_knob(d, rt::Knob(k), *defaults.v[k], info);
  // Read per device (each has its own default), once per device (device_state.cpp caches it).
  d.vector_bytes = int(rt::int_setting({"FUSECL_VECTOR_BYTES", d.vector_bytes, 1, 128, /*power_of_two=*/true,
                                        cpu ? "the default on CPUs" : "the default on GPUs"}));
  d.max_parameter_bytes = std::max<std::size_t>(256, info.max_parameter_size);
  // FUSECL_TILES=0 reads transposed operands in place (to compare the two paths).
  static const bool tiles = rt::switch_setting("FUSECL_TILES", true);
  d.tile_transposes = tiles;
  static const bool tile_registers = rt::switch_setting("FUSECL_TILE_REGISTERS", true);
  d.tile_registers = cpu && tile_registers;
  // FUSECL_COLUMN_BLOCKS=0 reduces leading axes as before (a group per output, or a work-item per output).
  static const bool column_blocks = rt::switch_setting("FUSECL_COLUMN_BLOCKS", true);
  d.column_blocks = column_blocks;
  d.max_work_group_size = info.max_work_group_size;
  d.local_mem_bytes = info.local_mem_bytes;
  // FUSECL_ONE_PASS_MOMENTS=0 computes var/std in two passes, as the graph
  // defines them (to compare the two; devices without float64 always do).
  static const bool moments = rt::switch_setting("FUSECL_ONE_PASS_MOMENTS", true);
  d.one_pass_moments = moments && info.fp64;
  d.moment_width = cpu ? 16 : 2;
  // Row kernels (reduce-then-use in one kernel) while a row's inputs fit in
  // local memory: the proxy for what a work-group's cache holds, so that the
  // row's later reads in the same kernel hit it.
  // FUSECL_ROW_KERNELS=0: none (a kernel per reduction, then their use; to compare).
  static const bool row_kernels = rt::switch_setting("FUSECL_ROW_KERNELS", true);
  d.row_bytes = row_kernels ? std::size_t(info.local_mem_bytes) : 0;
  // Elements per work-item of a row kernel: fewer work-items per row mean
  // shorter trees in local memory. On a GPU up to 16 stay in registers, in
  // groups of at most 128 work-items: on an H200, softmax and layer norm over
  // rows of 1024 (2^26 floats) took 143 and 134 us as 64 work-items of 16
  // elements, two rows to a group, against 146 and 162 with four rows to a
  // group of 256 and 171 and 141 as 128 work-items of 8 (a copy: 130 us;
  // bench/results/nvidia-h200.issue13-rows.md). A CPU's work-group is a loop
  // on one core, and its short rows keep at most 8.
  d.row_group_cap = cpu ? 1024 : 128;
  d.row_register_elements = cpu ? 8 : 16;
  // On a CPU a row is one work-item's: the group's work-items run one after
  // another on one core, and with one per row the kernel has no barrier, so
  // each work-item finishes its row while the row is in the core's cache.
  // Softmax and layer norm over rows of 1024 at 2^22 on the 2-core PoCL
  // machine: 1.7-1.8 and 1.5 ms, against 3.8-3.9 and 2.8 with 16 work-items
  // per row (bench/RESULTS.md, twentieth session).
  d.row_items_cap = cpu ? 1 : 1024;
  // Short rows on a CPU in the lanes form (a vector's lanes are rows): on the
  // 2-core PoCL machine, softmax over rows of 10 floats at 2^22 took 22.7 ms
  // in the loop form, all of each row in its scalar tail, 2.7 so (rows of
  // 1024: 1.6; plan_row_lanes); lone reductions over such rows too
  // (lane_rows.cpp's rows_in_lanes). FUSECL_ROW_LANES=0 takes the loop form
  // and a work-item a row, to compare.
  static const bool row_lanes = rt::switch_setting("FUSECL_ROW_LANES", true);
  d.row_lanes = cpu && row_lanes;
  // A GPU's long rows: up to 256 bytes of loads a work-item (plan_row's deep
  // register form), where 16 elements each took up to 1024 work-items a row.
  // An H200 at 2^26 floats, softmax / layer norm (us): rows of 8192 158 /
  // 135 against 202 / 152; of 16384 177 / 137 against 269 / 190; of 32768
  // 221 / 151 against 249 / 229 in two kernels (bench/RESULTS.md, twenty-
  // fifth session). FUSECL_ROW_HELD_BYTES=0 takes the earlier layouts.
  d.row_held_bytes = std::size_t(rt::int_setting(
      {"FUSECL_ROW_HELD_BYTES", cpu ? 0 : 256, 0, 1024, /*power_of_two=*/true, cpu ? "the default on CPUs" : "the default on GPUs"}));
  // Divisions by a row's value through its reciprocal (reciprocal.hpp): on
  // an H200, softmax over rows of 16384 / 32768 floats at 2^26 took 142 / 170
  // us against 161 / 193 with IEEE division at every element (bench/
  // RESULTS.md, twenty-sixth session). Exact only where `/` is correctly
  // rounded (the reciprocal) and fma is (hardware's; software fma would
  // cost more than the division); CPUs keep IEEE division.
  // FUSECL_ROW_RECIPROCAL=0 keeps IEEE division everywhere, to compare.
  d.row_reciprocal = info.correctly_rounded_sqrt && info.fma && rt::switch_setting("FUSECL_ROW_RECIPROCAL", !cpu);
  // Column reductions in vectors of outputs (DeviceTuning::column_items):
  // sum(x, 0) of 1024 x 1024 floats on the 2-core PoCL machine took 2.7 ms
  // as a work-item per column (scalar loads a row apart), NumPy 0.1 ms.
  static const bool pair_kernels = rt::switch_setting("FUSECL_PAIR_KERNELS", true);
  d.pair_kernels = pair_kernels;
  static const bool cross_rows = rt::switch_setting("FUSECL_CROSS_ROWS", true);
  d.cross_rows = cross_rows;
  static const bool reduce_finish = rt::switch_setting("FUSECL_REDUCE_FINISH", true);
  d.reduce_finish = reduce_finish;
  static const bool index32 = rt::switch_setting("FUSECL_INDEX32", true);
  d.index32 = index32;
  d.row_odd_elements = cpu ? 0 : 4096;  // DeviceTuning says why
  d.row_odd_elements = std::int64_t(
      rt::int_setting({"FUSECL_ROW_ODD_ELEMENTS", (long long)d.row_odd_elements, 0, 1LL << 40, /*power_of_two=*/false, "the default"}));
  static const bool row_skew = rt::switch_setting("FUSECL_ROW_SKEW", true);
  d.row_skew = row_skew;
  // A row's work-items (a row kernel's, a reduction's) combine their
  // partials within a warp through shfl.sync, not local memory
  // (DeviceTuning::row_warp says where): NVIDIA
  // GPUs of compute capability 3.0 (Kepler) or later, which have shuffles;
  // FUSECL_ROW_SHUFFLE=0 keeps local memory, to compare.
  static const bool row_shuffle = rt::switch_setting("FUSECL_ROW_SHUFFLE", true);
  d.row_warp = row_shuffle && info.warp_size == 32 && info.nv_compute_capability >= 30 ? 32 : 0;
  // Short rows in lanes (DeviceTuning::lane_rows): GPUs, whose warps read
  // a contiguous span a load at full rate; a CPU's short rows take the
  // lanes form of row kernels or a work-item an output.
  static const bool lane_rows = rt::switch_setting("FUSECL_LANE_ROWS", true);
  d.lane_rows = !cpu && lane_rows;
  // Short rows of a GPU's row kernels through local memory (DeviceTuning::
  // row_stage); a CPU's work-group is a loop on one core, which reads its
  // rows in place.
  d.row_stage = cpu ? 0 : int(rt::int_setting({"FUSECL_ROW_STAGE", 1, 0, 2, /*power_of_two=*/false, "the default (0: never, 2: wherever it can)"}));
  // The row length a constant of a GPU's row kernels held in registers
  // (DeviceTuning::row_constant; plan_row.cpp gives an H200's figures). A
  // CPU builds each kernel at greater cost, for no gain measured.
  static const bool row_constant = rt::switch_setting("FUSECL_ROW_CONSTANT", true);
  d.row_constant = !cpu && row_constant;
  d.pair_sum_elements = cpu ? 8192 : 1;  // DeviceTuning says why
  d.column_items = cpu ? 1 : 32;
  d.column_rows = cpu ? 1 : 8;
  d.elements_per_item = int(rt::int_setting({"FUSECL_ROW_ELEMENTS", d.elements_per_item, 1, 64, /*power_of_two=*/true, "the default"}));
  // A row's work-items combine their partials in two levels of 16 (two
  // barriers) instead of a binary tree (a barrier per level: 7 for 128
  // work-items); FUSECL_ROW_FANIN=0 keeps the tree, to compare.
  d.row_fanin = int(rt::int_setting({"FUSECL_ROW_FANIN", 16, 0, 64, /*power_of_two=*/true, "the default (0: a binary tree)"}));
  // Rows split over segments (GPUs): see DeviceTuning.
  d.row_segment = int(rt::int_setting({"FUSECL_ROW_SEGMENT", d.row_segment, 64, 16384, /*power_of_two=*/true, "the default"}));
  d.row_column_segment =
      int(rt::int_setting({"FUSECL_ROW_COLUMN_SEGMENT", d.row_column_segment, 16, 512, /*power_of_two=*/true, "the default"}));
  d.row_split = int(rt::int_setting({"FUSECL_ROW_SPLIT", d.row_split, 0, 2, /*power_of_two=*/false, "the default"}));
  d.row_split_bytes = std::uint64_t(
      rt::int_setting({"FUSECL_ROW_SPLIT_BYTES", (long long)d.row_split_bytes, 0, 1LL << 40, /*power_of_two=*/false, "the default"}));
  d.row_column_bytes = std::uint64_t(
      rt::int_setting({"FUSECL_ROW_COLUMN_BYTES", (long long)d.row_column_bytes, 0, 1LL << 40, /*power_of_two=*/false, "the default"}));
  d.column_one_wave = !cpu && rt::switch_setting("FUSECL_COLUMN_ONE_WAVE", true);
  // Compensated sums in several chains a work-item (DeviceTuning::reduce_chains).
  // The 2-core PoCL machine at 2^22 floats, medians of three rounds, one
  // chain / four: sum(x * x) 726 / 280 us, layer norm over rows of 1024 1422
  // / 642; eight gave what four did (bench/RESULTS.md, fiftieth session).
  d.reduce_chains = int(rt::int_setting({"FUSECL_REDUCE_CHAINS", cpu ? 4 : 1, 1, 8, /*power_of_two=*/false, "the default"}));
  return d;
}

DeviceTuning default_tuning(const rt::Runtime& rt) {
  DeviceTuning d = default_tuning(rt::info(rt));
  // Split reductions end in their last work-group where the device's OpenCL C
  // makes that well-defined (acq_rel atomics at device scope), else in a second
  // kernel. FUSECL_REDUCE_TWO_KERNELS=1 forces the second kernel (a debugging
  // aid: it compares the two paths on one device).
  static const bool forced = rt::switch_setting("FUSECL_REDUCE_TWO_KERNELS", false);
  d.split_finish = forced || rt::c11_atomics_std(rt).empty() ? codegen::SplitFinish::SecondKernel
                                                              : codegen::SplitFinish::LastGroup;
  return d;
}

DeviceTuning device_tuning() {
  const DevicePtr dev = current_state();
  const GraphLock lock(*dev);
  return tuning_of(*dev);
}

rt::KernelSource kernel_source(const rt::Runtime& rt, const codegen::KernelPlan& plan) {
  const std::string name = codegen::kernel_name(plan);
  std::string options = build_options(rt);
  // Only kernels with OpenCL C 2.0 atomics are built under a later standard;
  // every other kernel keeps OpenCL C 1.2's semantics on every device.
  if (codegen::uses_c11_atomics(plan)) {
    const std::string& std_option = rt::c11_atomics_std(rt);
    if (std_option.empty())
      throw Error("internal error: a reduction kernel uses OpenCL C 2.0 atomics, which device '" + rt::info(rt).name +
                  "' does not have");
    const std::string cl12 = "-cl-std=CL1.2";
    options.replace(options.find(cl12), cl12.size(), std_option);
  }
  return {name, codegen::render(plan, name), options};
}

namespace {

rt::KernelArg long_arg(std::int64_t v) { return rt::KernelArg::of_bits(std::uint64_t(v), 8); }

// The second kernel of a split reduction whose partials a kernel of `plan` with `args` leaves in scratch.
ScheduledKernel combine_kernel(const codegen::KernelPlan& plan, const KernelArgs& args) {
  ScheduledKernel c{codegen::combine_plan(plan), {}};
  c.args.count = args.count;
  c.args.reduce_count = args.groups;
  c.args.groups = args.groups;
  c.args.scratch_bytes = args.scratch_bytes;
  if (plan.reduce.op == Op::Mean) c.args.scalars.push_back(args.scalars.at(std::size_t(plan.reduce.divisor)));
  // A moment kernel's mean output has its divisor in the next slot (combine_plan keeps both).
  if (plan.reduce.moment == 2) c.args.scalars.push_back(args.scalars.at(std::size_t(plan.reduce.divisor + 1)));
  // The finish's scalars, as combine_plan numbers them.
  for (const std::int16_t s : codegen::finish_scalar_slots(plan)) c.args.scalars.push_back(args.scalars.at(std::size_t(s)));
  return c;
}

// A row kernel's plan with its partials meeting in local memory, not through
// warp shuffles: always a valid plan (plan_row only adds the shuffles).
codegen::KernelPlan without_warps(const codegen::KernelPlan& plan) {
  codegen::KernelPlan p = plan;
  p.reduce.row_warp = 0;
  return p;
}

// A row kernel whose row length is a constant of its source (ReduceSpec::
// row_length) is a kernel of its own for each length. A device takes the
// first kRowLengths lengths of a kernel's class (its plan but for the
// length) as constants, and any later one as the argument, in one kernel
// more: a workload of many row lengths (a server's sequences of every
// length) builds at most kRowLengths + 1 kernels of a class, as
// torch.compile makes a shape dynamic once it has seen it change.
codegen::KernelPlan with_length_argument(const codegen::KernelPlan& plan) {
  codegen::KernelPlan p = plan;
  p.reduce.row_length = 0;
  return p;
}
bool length_admitted(DeviceState& dev, const codegen::KernelPlan& plan) {
  auto& lengths = dev.row_lengths[codegen::signature(with_length_argument(plan))];
  if (std::find(lengths.begin(), lengths.end(), plan.reduce.row_length) != lengths.end()) return true;
  if (lengths.size() >= kRowLengths) return false;
  lengths.push_back(plan.reduce.row_length);
  return true;
}

}  // namespace

void launch(DeviceState& dev, const codegen::KernelPlan& plan, const KernelArgs& a,
            std::span<const std::shared_ptr<rt::DeviceBuffer>> outputs, LaunchMemo* memo) {
  if (a.count == 0) return;  // nothing to compute; outputs are empty
  if (plan.reduce.row_warp > 0 && dev.warps_refused) {
    launch(dev, without_warps(plan), a, outputs);
    return;
  }
  if (plan.index32 && !index_space_fits_32(a.dims))
    throw Error("internal: a kernel made for coordinates in 32 bits run on an index space of 2^31 elements or more");
  if (plan.reduce.moment && plan.reduce.strategy == codegen::ReduceStrategy::ThreadPerOutput && !plan.reduce.combine &&
      !plan.reduce.moment_blocks && a.reduce_count > codegen::kMomentThreadValues)
    throw Error("internal: a moment kernel made for ranges of at most " + std::to_string(codegen::kMomentThreadValues) +
                " values run on " + std::to_string(a.reduce_count));
  // A reduction over rows in lanes (a GPU's lanes_per_row, a CPU's row_lanes) has their length in its text.
  const std::int64_t lane_length = plan.reduce.lanes_per_row > 0 ? codegen::lane_row_length(plan)
                                   : plan.kind == codegen::KernelKind::Reduce && plan.reduce.row_lanes ? plan.reduce.row_lane_length
                                                                                                      : 0;
  if (lane_length > 0 && a.reduce_count != lane_length)
    throw Error("internal: a reduction made for rows of " + std::to_string(lane_length) + " run on rows of " + std::to_string(a.reduce_count));
  if (plan.reduce.row_length > 0) {
    if (a.reduce_count != std::int64_t(plan.reduce.row_length))
      throw Error("internal: a row kernel made for rows of " + std::to_string(plan.reduce.row_length) + " run on rows of " +
                  std::to_string(a.reduce_count));
    // A kept plan decides once (its memo), any other plan at each launch.
    using Length = LaunchMemo::Length;
    const bool constant = memo && memo->length != Length::Unknown ? memo->length == Length::Constant : length_admitted(dev, plan);
    if (!constant) {
      LaunchMemo* argument = nullptr;
      if (memo) {
        memo->length = Length::Argument;
        if (!memo->argument) memo->argument = std::make_shared<LaunchMemo>();
        argument = memo->argument.get();
      }
      launch(dev, with_length_argument(plan), a, outputs, argument);
      return;
    }
    if (memo) memo->length = Length::Constant;
  }
  rt::Runtime& rt = dev.runtime();
  const DeviceInfo& info = rt::info(rt);
  if (plan.uses_fp64() && !info.fp64)
    throw Error("float64 needs the cl_khr_fp64 extension, which device '" + info.name +
                "' does not have; use float32 arrays or choose another device with FUSECL_DEVICE or open_device");

  using rt::KernelArg;
  LaunchMemo local_memo;
  if (!memo) memo = &local_memo;
  if (memo->signature.empty()) {
    memo->params = codegen::params(plan);
    memo->signature = codegen::signature(plan);
  }
  const codegen::ParamList& ps = memo->params;
  const std::string& signature = memo->signature;
  SmallVector<KernelArg, 64> args;  // as many as ps: in place for most kernels (Black-Scholes has 35)
  std::shared_ptr<rt::DeviceBuffer> scratch, counters;  // alive until enqueued
  for (const auto& p : ps) {
    const auto idx = std::size_t(p.index);
    switch (p.role) {
      case codegen::ParamRole::Output:
        if (idx >= outputs.size()) throw Error("internal: a kernel writes output " + std::to_string(idx) + " of " + std::to_string(outputs.size()));
        args.push_back(KernelArg::of_buffer(outputs[idx].get()));
        break;
      case codegen::ParamRole::Input: {
        const InputBuffer& in = a.inputs.at(idx);
        if (!in.buffer) throw Error("internal: schedule output " + std::to_string(in.pending) + " read before it exists");
        args.push_back(KernelArg::of_buffer(in.buffer.get()));
        break;
      }
      case codegen::ParamRole::Scalar:
        args.push_back(KernelArg::of_bits(a.scalars.at(idx), size_of(plan.scalar_dtypes[idx])));
        break;
      case codegen::ParamRole::Count: args.push_back(long_arg(a.count)); break;
      case codegen::ParamRole::ReduceCount: args.push_back(long_arg(a.reduce_count)); break;
      case codegen::ParamRole::Dim: args.push_back(long_arg(a.dims.at(idx))); break;
      case codegen::ParamRole::Divider:
        args.push_back(KernelArg::of_bits(codegen::divider_arg_bits(codegen::divider_of(a.dims.at(idx))), 8));
        break;
      case codegen::ParamRole::Offset: args.push_back(long_arg(a.offsets.at(idx))); break;
      case codegen::ParamRole::Stride: args.push_back(long_arg(a.strides.at(idx).at(std::size_t(p.sub)))); break;
      case codegen::ParamRole::GenParam: {
        const auto& in = plan.instrs[idx];
        const DType t = codegen::gen_param_dtype(in.gen, in.dtype, p.sub);
        args.push_back(KernelArg::of_bits(a.gen_params[idx][std::size_t(p.sub)], size_of(t)));
        break;
      }
      case codegen::ParamRole::Scratch:
        scratch = rt::reduce_partials(rt, a.scratch_bytes);
        args.push_back(KernelArg::of_buffer(scratch.get()));
        break;
      case codegen::ParamRole::Counters:
        counters = rt::reduce_counters(rt, a.count);
        args.push_back(KernelArg::of_buffer(counters.get()));
        break;
      case codegen::ParamRole::Groups: args.push_back(long_arg(a.groups)); break;
      case codegen::ParamRole::RowStride: args.push_back(long_arg(a.row_stride)); break;
      case codegen::ParamRole::OutOffset: args.push_back(long_arg(a.out_offset)); break;
      case codegen::ParamRole::OutStride: args.push_back(long_arg(a.out_strides.at(idx))); break;
    }
  }
  if (plan.tile && plan.kind == codegen::KernelKind::Elementwise) {
    // Tiled: the tiles (blocks) of every (batch, Y, X) in one flat group
    // index along dimension 0, X fastest.
    const std::int64_t T = plan.tile, X = plan.ndim - 1, Y = plan.tile_axis;
    auto tiles_along = [&](std::int64_t d) { return (a.dims.at(std::size_t(d)) + T - 1) / T; };
    std::size_t batch = 1;
    for (std::int64_t d = 0; d < plan.ndim; ++d)
      if (d != X && d != Y) batch *= std::size_t(a.dims[std::size_t(d)]);
    if (plan.tile_registers) {
      // A CPU's blocks (render_tiled_registers.cpp): a group of kTileBlocks x kTileBlocks blocks.
      const std::int64_t G = codegen::kTileBlocks;
      const std::size_t groups = std::size_t((tiles_along(X) + G - 1) / G) * std::size_t((tiles_along(Y) + G - 1) / G) * batch;
      const std::size_t local = std::size_t(G * G);
      rt::launch_kernel(rt, signature, [&] { return kernel_source(rt, plan); }, {args.data(), args.size()},
                        rt::NDRange{1, {groups * local, 1, 1}, {local, 1, 1}});
      return;
    }
    // Through local memory (render_tiled.cpp): one group per tile.
    const std::size_t tiles = std::size_t(tiles_along(X)) * std::size_t(tiles_along(Y)) * batch;
    const std::size_t rows = std::size_t(codegen::tile_rows(plan));
    rt::launch_kernel(rt, signature, [&] { return kernel_source(rt, plan); }, {args.data(), args.size()},
                      rt::NDRange{2, {tiles * std::size_t(T), rows, 1}, {std::size_t(T), rows, 1}});
    return;
  }
  if (plan.kind == codegen::KernelKind::Reduce && plan.reduce.strategy == codegen::ReduceStrategy::ColumnBlock &&
      !plan.reduce.combine) {
    // A group per (block of outputs, part of the rows), flat along dimension 0.
    const codegen::ColumnGroup g = codegen::column_group(plan.reduce);
    const std::size_t R = std::size_t(g.rows), B = std::size_t(g.across);
    const std::size_t per_block = B * (plan.reduce.kept_inner ? plan.width : 1);
    const std::size_t blocks = (std::size_t(a.count) + per_block - 1) / per_block;
    rt::launch_kernel(rt, signature, [&] { return kernel_source(rt, plan); }, {args.data(), args.size()},
                      rt::NDRange{2, {blocks * std::size_t(a.groups) * B, R, 1}, {B, R, 1}});
  } else {
    // Elementwise: the device's measured (or default) group size; tuning.hpp
    // sets it, and the tuner's candidates, in the device's tuning.
    std::size_t local = std::min<std::size_t>(dev.tuning ? std::size_t(std::max(1, dev.tuning->elementwise_local_size)) : 256,
                                              std::max<std::size_t>(1, info.max_work_group_size));
    std::size_t global;
    if (plan.kind == codegen::KernelKind::Row) {  // a work-group per rows_per_group rows (grid form: count groups; split: of segments)
      local = plan.reduce.local_size;
      const std::size_t g = plan.reduce.rows_per_group;
      const std::size_t rows = std::size_t(a.count) * std::size_t(plan.reduce.row_split ? a.groups : 1);  // split: segments
      global = (rows + g - 1) / g * local;
    } else if (plan.kind == codegen::KernelKind::Reduce && plan.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput) {
      local = plan.reduce.local_size;
      const std::size_t rows = plan.reduce.rows_per_group;  // short rows, several a group
      global = (std::size_t(a.count) + rows - 1) / rows * std::size_t(plan.reduce.combine ? 1 : a.groups) * local;
    } else {
      if (plan.kind == codegen::KernelKind::Reduce) local = plan.reduce.local_size;
      // A reduction a work-item an output, or with rows in lanes W outputs (render_reduce.cpp's lanes_rows).
      const bool per_output = plan.kind == codegen::KernelKind::Reduce && !plan.reduce.row_lanes;
      const std::size_t work = per_output ? std::size_t(a.count) : std::size_t((a.count + plan.width - 1) / plan.width);
      global = (work + local - 1) / local * local;
    }
    try {
      rt::launch_kernel(rt, signature, [&] { return kernel_source(rt, plan); }, {args.data(), args.size()}, global, local);
    } catch (const rt::BuildError& e) {
      // A driver that takes NVIDIA's attributes but not the PTX of the warp
      // shuffles (another version, another vendor's implementation): the
      // device's row kernels and reductions meet their partials in local
      // memory from now on.
      if (plan.reduce.row_warp == 0) throw;
      dev.warps_refused = true;
      if (dev.tuning) dev.tuning->row_warp = 0;
      std::string why = e.what();
      why = why.substr(0, std::min<std::size_t>(why.find("\ngenerated source:"), 4000));  // the build log, not the source
      rt::write_to_stderr("fusecl: warning: device '" + info.name + "' (driver " + info.driver_version +
                          ") did not build a kernel's warp shuffles (inline PTX); its row kernels and reductions combine their "
                          "partial results in local memory instead (as FUSECL_ROW_SHUFFLE=0 does). " + why);
      launch(dev, without_warps(plan), a, outputs);
    }
  }
  if (plan.kind == codegen::KernelKind::Reduce && plan.reduce.two_stage && !plan.reduce.combine &&
      plan.reduce.finish == codegen::SplitFinish::SecondKernel)
    launch(dev, combine_kernel(plan, a), outputs);
}

}  // namespace fusecl::detail
