// Host views (host_view): expressions over caller memory computed in chunks
// of rows. Every case checks the values against a host reference and that the
// work was really chunked (Stats::streamed_chunks), with chunks made small
// (set_stream_chunk_bytes) so that small arrays cross many chunk boundaries,
// with partial last chunks. The cases under a 64M device memory limit stream
// 3 x 128 MiB of host data through it.
#include "fusecl/fusecl.hpp"
#include "runtime/transfer.hpp"
#include "src/stream.hpp"

#include "support/each_check.hpp"
#include "support/memory_limit.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
namespace rt = fusecl::rt;

namespace {

constexpr std::uint64_t MiB = 1024 * 1024;

struct ChunkGuard {
  explicit ChunkGuard(std::size_t bytes) : before(fusecl::detail::set_stream_chunk_bytes(bytes)) {}
  ~ChunkGuard() { fusecl::detail::set_stream_chunk_bytes(before); }
  std::size_t before;
};

struct ModeGuard {
  explicit ModeGuard(rt::TransferMode m) : before(rt::transfer_mode()) { rt::set_transfer_mode(m); }
  ~ModeGuard() { rt::set_transfer_mode(before); }
  rt::TransferMode before;
};

// Random floats with a different value in every element, and edge values
// sprinkled in where asked.
std::vector<float> random_floats(std::size_t n, unsigned seed, bool edges = false) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  if (edges && n > 16) {
    const float e[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 3.0e38f, -3.0e38f};
    for (std::size_t i = 0; i < std::size(e); ++i) v[(i * 7919 + 3) % n] = e[i];
  }
  return v;
}

std::uint64_t chunks_since(std::uint64_t before) { return fusecl::stats().streamed_chunks - before; }

// What a user sees: the same expression over from_host arrays (on the device, whole).
template <class F>
void expect_close(const std::vector<float>& got, const std::vector<float>& want, F tolerance) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      REQUIRE(std::isnan(got[i]));
      continue;
    }
    if (std::isinf(want[i])) REQUIRE_EACH(got[i] == want[i], "element " << i << ": " << got[i] << " against " << want[i]);
    else REQUIRE_EACH(std::abs(double(got[i]) - double(want[i])) <= tolerance(want[i]), "element " << i << ": " << got[i] << " against " << want[i]);
  }
}

}  // namespace

// Chunk boundaries move which elements a kernel computes in vector lanes and
// which in its scalar tail, and a driver's vector and scalar builtins may
// round differently: within the ops' documented ulps, not bit for bit.
TEST_CASE("elementwise expressions over host views, in chunks, match the device path", "[host_view]") {
  const auto mode = GENERATE(rt::TransferMode::Auto, rt::TransferMode::Direct, rt::TransferMode::Staged);
  const ModeGuard mg(mode);
  const ChunkGuard cg(8 * 1024);  // 8 KiB of rows per chunk
  for (const std::int64_t rows : {1, 3, 17, 1000, 4099}) {
    const std::int64_t cols = 7;
    const auto a = random_floats(std::size_t(rows * cols), 1 + unsigned(rows), true);
    const auto b = random_floats(std::size_t(rows * cols), 2 + unsigned(rows));
    const fusecl::Shape shape{rows, cols};
    auto ha = fusecl::host_view(a, shape), hb = fusecl::host_view(b, shape);
    auto da = fusecl::from_host(a, shape), db = fusecl::from_host(b, shape);
    const auto before = fusecl::stats().streamed_chunks;
    const auto got = (fusecl::sqrt(ha * ha + 1.0f) * hb - fusecl::exp(hb / 4.0f)).to_host();
    const auto want = (fusecl::sqrt(da * da + 1.0f) * db - fusecl::exp(db / 4.0f)).to_host();
    INFO("rows " << rows);
    const std::int64_t row_bytes = cols * 4 * 3;  // two inputs and the result
    const std::int64_t expect = (rows + std::max<std::int64_t>(1, 8 * 1024 / row_bytes) - 1) /
                                std::max<std::int64_t>(1, 8 * 1024 / row_bytes);
    CHECK(std::int64_t(chunks_since(before)) == expect);
    expect_close(got, want, [](float w) { return std::isinf(w) ? 0.0 : 8 * std::abs(double(w)) * 1.2e-7 + 1e-37; });
    // Into caller memory, and the host data read again on every evaluation (a view, not a copy).
    std::vector<float> out(got.size());
    (ha + hb).to_host(std::span<float>(out));
    for (std::size_t i = 0; i < out.size(); i += 13) REQUIRE(out[i] == a[i] + b[i]);
  }
}

TEST_CASE("a host view reads the caller's memory at each evaluation", "[host_view]") {
  std::vector<float> h(1000, 1.0f);
  auto x = fusecl::host_view(h);
  auto y = x * 2.0f;
  CHECK(y.to_host()[999] == 2.0f);
  h[999] = 5.0f;
  CHECK(y.to_host()[999] == 10.0f);  // still lazy over host memory: not cached on the device
  CHECK(fusecl::sum(x).to_host()[0] == 1004.0f);
}

TEST_CASE("host views broadcast against device arrays and small host views", "[host_view]") {
  const ChunkGuard cg(4 * 1024);
  const std::int64_t rows = 999, cols = 33;
  const auto a = random_floats(std::size_t(rows * cols), 11);
  const auto bias = random_floats(std::size_t(cols), 12);
  const auto scale = random_floats(std::size_t(rows), 13);
  auto ha = fusecl::host_view(a, {rows, cols});
  auto dbias = fusecl::from_host(bias, {cols});          // a device array, broadcast along the rows
  auto hscale = fusecl::host_view(scale, {rows, 1});     // a host view broadcast along the columns
  auto hbias = fusecl::host_view(bias, {cols});          // a host view every chunk reads whole
  const auto before = fusecl::stats().streamed_chunks;
  const auto got = ((ha + dbias) * hscale - hbias).to_host();
  CHECK(chunks_since(before) > 1);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::size_t i = std::size_t(r * cols + c);
      REQUIRE(got[i] == (a[i] + bias[std::size_t(c)]) * scale[std::size_t(r)] - bias[std::size_t(c)]);
    }
  // A device array of the same shape as the host view: read through views of each chunk's rows.
  auto dfull = fusecl::from_host(a, {rows, cols});
  const auto got2 = (ha * dfull + fusecl::reshape(fusecl::arange<float>(0.0, double(rows * cols)), {rows, cols})).to_host();
  for (std::size_t i = 0; i < got2.size(); i += 7) REQUIRE(got2[i] == a[i] * a[i] + float(i));
}

TEST_CASE("row reductions over host views stay inside chunks, and softmax of host rows", "[host_view]") {
  const ChunkGuard cg(16 * 1024);
  const std::int64_t rows = 1001, cols = 37;
  const auto a = random_floats(std::size_t(rows * cols), 21, true);
  auto h = fusecl::host_view(a, {rows, cols});
  fusecl::reset_stats();
  const auto m = fusecl::max(h, 1, true);
  const auto e = fusecl::exp(h - m);
  const auto sm = (e / fusecl::sum(e, 1, true)).to_host();
  const auto s = fusecl::stats();
  CHECK(s.streamed_chunks > 1);
  CHECK(s.uploads == s.streamed_chunks);  // the rows went up once: the reductions ran per chunk
  const auto rowsum = fusecl::sum(h, 1).to_host();
  for (std::int64_t r = 0; r < rows; ++r) {
    long double mx = -INFINITY, tot = 0, plain = 0;
    for (std::int64_t c = 0; c < cols; ++c) mx = std::max<long double>(mx, a[std::size_t(r * cols + c)]);
    for (std::int64_t c = 0; c < cols; ++c) tot += std::exp((long double)a[std::size_t(r * cols + c)] - mx);
    for (std::int64_t c = 0; c < cols; ++c) plain += a[std::size_t(r * cols + c)];
    for (std::int64_t c = 0; c < cols; ++c) {
      const long double want = std::exp((long double)a[std::size_t(r * cols + c)] - mx) / tot;
      REQUIRE(std::abs((long double)sm[std::size_t(r * cols + c)] - want) <= 1e-6L + 1e-5L * want);
    }
    // Rows with ±3e38 overflow in float32, as NumPy's do.
    if (std::isfinite(double(plain)) && std::abs(double(plain)) < 1e30) REQUIRE(rowsum[std::size_t(r)] == Approx(double(plain)).margin(1e-4));
  }
}

TEST_CASE("full and column reductions over host views combine per-chunk partials", "[host_view]") {
  const ChunkGuard cg(4 * 1024);
  const std::int64_t rows = 3001, cols = 5;
  auto a = random_floats(std::size_t(rows * cols), 31);
  auto h = fusecl::host_view(a, {rows, cols});
  long double sum = 0, sq = 0;
  for (float v : a) sum += v;
  const long double mean = sum / (long double)a.size();
  for (float v : a) sq += (v - mean) * (v - mean);

  auto before = fusecl::stats().streamed_chunks;
  CHECK(fusecl::sum(h).to_host()[0] == Approx(double(sum)).margin(1e-3));
  CHECK(chunks_since(before) > 1);
  CHECK(fusecl::mean(h).to_host()[0] == Approx(double(mean)).margin(1e-6));
  CHECK(fusecl::var(h).to_host()[0] == Approx(double(sq / (long double)a.size())).epsilon(1e-5));
  CHECK(fusecl::stddev(h, std::vector<int>{0, 1}, false, 1).to_host()[0] ==
        Approx(std::sqrt(double(sq / (long double)(a.size() - 1)))).epsilon(1e-5));
  CHECK(fusecl::sum(h * h).to_host()[0] == Approx(double([&] {
                                              long double t = 0;
                                              for (float v : a) t += (long double)v * v;
                                              return t;
                                            }())).epsilon(1e-6));

  // Extremes, and the first of equal values wins across chunk boundaries.
  a[100] = -9.0f;
  a[2500 * 5 + 1] = 9.0f;
  a[2900 * 5 + 1] = 9.0f;
  a[2950 * 5 + 4] = -9.0f;
  CHECK(fusecl::max(h).to_host()[0] == 9.0f);
  CHECK(fusecl::min(h).to_host()[0] == -9.0f);
  CHECK(fusecl::argmax(h).to_host()[0] == 2500 * 5 + 1);
  CHECK(fusecl::argmin(h).to_host()[0] == 100);
  const auto amax0 = fusecl::argmax(h, 0).to_host();
  CHECK(amax0[1] == 2500);
  const auto amin0 = fusecl::argmin(h, 0).to_host();
  CHECK(amin0[0] == 20);
  CHECK(amin0[4] == 2950);
  // NaN wins argmax and argmin (the first one), and max and min.
  a[1700 * 5 + 2] = NAN;
  a[2800 * 5 + 2] = NAN;
  CHECK(fusecl::argmax(h).to_host()[0] == 1700 * 5 + 2);
  CHECK(fusecl::argmin(h, 0).to_host()[2] == 1700);
  CHECK(std::isnan(fusecl::max(h).to_host()[0]));
  a[1700 * 5 + 2] = 0.0f;
  a[2800 * 5 + 2] = 0.0f;

  // Column sums against the reference.
  const auto col = fusecl::sum(h, 0).to_host();
  for (std::int64_t c = 0; c < cols; ++c) {
    long double t = 0;
    for (std::int64_t r = 0; r < rows; ++r) t += a[std::size_t(r * cols + c)];
    CHECK(col[std::size_t(c)] == Approx(double(t)).margin(1e-3));
  }
  const auto colmean = fusecl::mean(h, 0, true).to_host();
  CHECK(colmean.size() == std::size_t(cols));

  // Integers and booleans: exact.
  std::vector<std::int32_t> ints(40000);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = std::int32_t(i * 2654435761u % 100000) - 50000;
  auto hi = fusecl::host_view(ints);
  std::int64_t isum = 0;
  for (auto v : ints) isum += v;
  CHECK(fusecl::sum(hi).to_host()[0] == isum);
  CHECK(fusecl::any(hi == 49999).to_host()[0] == (std::find(ints.begin(), ints.end(), 49999) != ints.end()));
  CHECK(fusecl::all(hi != 123456).to_host()[0]);
  CHECK(fusecl::max(hi).to_host()[0] == *std::max_element(ints.begin(), ints.end()));
  CHECK(fusecl::argmax(hi).to_host()[0] == std::max_element(ints.begin(), ints.end()) - ints.begin());
}

TEST_CASE("a reduction across host rows read again: evaluated first, then the chunks", "[host_view]") {
  const ChunkGuard cg(4 * 1024);
  const auto a = random_floats(20000, 41);
  auto h = fusecl::host_view(a, {4000, 5});
  long double sum = 0;
  for (float v : a) sum += v;
  const auto mean = float(sum / (long double)a.size());
  const auto centered = (h - fusecl::mean(h)).to_host();
  for (std::size_t i = 0; i < a.size(); i += 11) REQUIRE(centered[i] == Approx(a[i] - mean).margin(1e-5));
  // Empty and size-1 host views.
  std::vector<float> none;
  CHECK(fusecl::host_view(none).to_host().empty());
  CHECK(fusecl::sum(fusecl::host_view(none)).to_host()[0] == 0.0f);
  std::vector<float> one{3.5f};
  CHECK((fusecl::host_view(one) * 2.0f).to_host()[0] == 7.0f);
  CHECK(fusecl::argmax(fusecl::host_view(one)).to_host()[0] == 0);
  CHECK((fusecl::host_view(std::span<const float>(one), fusecl::Shape{}) + 1.0f).to_host()[0] == 4.5f);
}

TEST_CASE("views of host views: slices, flips, and transposes (whole where they fit, an error where not)", "[host_view]") {
  const ChunkGuard cg(2 * 1024);
  const std::int64_t rows = 300, cols = 40;
  const auto a = random_floats(std::size_t(rows * cols), 51);
  auto h = fusecl::host_view(a, {rows, cols});
  const auto sl = fusecl::slice(h, {fusecl::range(5, 290, 3), fusecl::range(1, 39, 2)}).to_host();
  std::size_t k = 0;
  for (std::int64_t r = 5; r < 290; r += 3)
    for (std::int64_t c = 1; c < 39; c += 2) REQUIRE(sl[k++] == a[std::size_t(r * cols + c)]);
  REQUIRE(k == sl.size());
  const auto fl = fusecl::flip(h, 0).to_host();
  for (std::int64_t r = 0; r < rows; r += 17) REQUIRE(fl[std::size_t(r * cols + 3)] == a[std::size_t((rows - 1 - r) * cols + 3)]);
  // A transpose reads across every row: uploaded whole once (it fits), still right.
  const auto tr = (fusecl::transpose(h) * 2.0f).to_host();
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; r += 7) REQUIRE(tr[std::size_t(c * rows + r)] == 2.0f * a[std::size_t(r * cols + c)]);
  CHECK_THAT(fusecl::kernel_source(h * 2.0f), Contains("streamed over host views"));
}

TEST_CASE("an unaligned caller buffer, and a fault in the middle of a pipeline", "[host_view]") {
  const ChunkGuard cg(8 * 1024);
  std::vector<float> store(10001);
  for (std::size_t i = 0; i < store.size(); ++i) store[i] = float(i) * 0.25f;
  const std::span<const float> unaligned(store.data() + 1, 10000);  // 4 bytes past an aligned start
  auto h = fusecl::host_view(unaligned, {2000, 5});
  const auto y = (h * 4.0f).to_host();
  for (std::size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == float(i + 1));

  std::vector<float> out(10000, -1.0f);
  fusecl::detail::set_stream_fault(2);
  CHECK_THROWS_WITH((h + 1.0f).to_host(std::span<float>(out)), Contains("fault injected"));
  CHECK_THROWS_WITH(fusecl::sum(h).to_host(), Contains("fault injected"));
  fusecl::detail::set_stream_fault(-1);
  // Nothing is left queued: the caller may reuse its memory, and the device goes on.
  std::fill(out.begin(), out.end(), -2.0f);
  fusecl::finish();
  CHECK(out[9999] == -2.0f);
  (h + 1.0f).to_host(std::span<float>(out));
  CHECK(out[9999] == store[10000] + 1.0f);
}

TEST_CASE("3 x 128 MiB of host views through a device with a 64M limit", "[host_view][memory_limit][devices]") {
  const fusecl::Device dev = fusecl_test::open_with_limit("64M");
  const std::size_t n = 128 * MiB / 4;
  const std::int64_t cols = 1024, rows = std::int64_t(n) / cols;
  std::vector<float> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = float(i % 1013) * 0.01f;
    b[i] = float(i % 997) * -0.02f;
    c[i] = float((i * 7) % 1009);
  }
  const fusecl::Shape shape{rows, cols};
  auto ha = fusecl::host_view(a, shape, dev), hb = fusecl::host_view(b, shape, dev), hc = fusecl::host_view(c, shape, dev);
  std::vector<float> bias_h(static_cast<std::size_t>(cols));
  for (std::size_t i = 0; i < bias_h.size(); ++i) bias_h[i] = float(i) * 0.5f;
  auto bias = fusecl::from_host(bias_h, {cols}, dev);
  fusecl::reset_stats();
  const std::uint64_t held_elsewhere = fusecl::stats().peak_device_bytes;

  std::vector<float> out(n);
  (ha * hb + hc - bias).to_host(std::span<float>(out));
  for (std::size_t i = 0; i < n; i += 4099) REQUIRE(out[i] == a[i] * b[i] + c[i] - bias_h[i % std::size_t(cols)]);
  auto s = fusecl::stats();
  CHECK(s.streamed_chunks > 1);
  CHECK(s.bytes_uploaded >= 3 * 128 * MiB);
  CHECK(s.bytes_downloaded == 128 * MiB);
  CHECK(s.peak_device_bytes - held_elsewhere <= 64 * MiB);

  // Row reductions, a full reduction and argmax, under the same limit.
  const auto rowmax = fusecl::max(ha + hc, 1).to_host();
  for (std::int64_t r = 0; r < rows; r += 977) {
    float m = -INFINITY;
    for (std::int64_t k = 0; k < cols; ++k) m = std::max(m, a[std::size_t(r * cols + k)] + c[std::size_t(r * cols + k)]);
    REQUIRE(rowmax[std::size_t(r)] == m);
  }
  long double tot = 0;
  for (std::size_t i = 0; i < n; ++i) tot += (long double)a[i] * b[i];
  CHECK(fusecl::sum(ha * hb).to_host()[0] == Approx(double(tot)).epsilon(1e-5));
  c[n - 5] = 5000.0f;
  CHECK(fusecl::argmax(hc).to_host()[0] == std::int64_t(n - 5));
  CHECK(fusecl::stats().peak_device_bytes - held_elsewhere <= 64 * MiB);

  // A result that must stay whole on the device, larger than the limit, says so.
  auto big = ha + hb;
  CHECK_THROWS_WITH(fusecl::eval(big), Contains("to_host(span)") && Contains("64 MiB"));
  // A device array larger than the limit too.
  CHECK_THROWS_WITH(fusecl::from_host(a, shape, dev), Contains("FUSECL_DEVICE_MEMORY_LIMIT"));
  // The device goes on.
  CHECK(fusecl::sum(fusecl::host_view(std::span<const float>(a.data(), 1024), {1024}, dev)).to_host()[0] ==
        Approx(std::accumulate(a.begin(), a.begin() + 1024, 0.0)));
}

// FUSECL_TRANSFERS=staged runs the overlapped pipeline (uploads and downloads
// on queues of their own, a download thread) on any device, PoCL included.
TEST_CASE("the overlapped pipeline: its own queues, a download thread, a fault in the middle", "[host_view][threads]") {
  const ModeGuard mg(rt::TransferMode::Staged);
  const ChunkGuard cg(4 * 1024);
  const std::int64_t rows = 2049, cols = 9;
  const auto a = random_floats(std::size_t(rows * cols), 61, true);
  const auto b = random_floats(std::size_t(rows * cols), 62);
  auto ha = fusecl::host_view(a, {rows, cols}), hb = fusecl::host_view(b, {rows, cols});
  for (int round = 0; round < 3; ++round) {
    fusecl::reset_stats();
    std::vector<float> out(a.size());
    (ha * hb + 1.0f).to_host(std::span<float>(out));
    CHECK(fusecl::stats().streamed_chunks > 3);
    for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == a[i] * b[i] + 1.0f);
    // Softmax of host rows, and the whole result made on the device.
    auto e = fusecl::exp(ha - fusecl::max(ha, 1, true));
    auto sm = e / fusecl::sum(e, 1, true);
    fusecl::eval(sm);
    const auto smh = sm.to_host();
    for (std::int64_t r = 0; r < rows; r += 101) {
      double t = 0;
      for (std::int64_t c = 0; c < cols; ++c) t += smh[std::size_t(r * cols + c)];
      REQUIRE(t == Approx(1.0).epsilon(1e-5));
    }
    long double tot = 0;  // b has no edge values: its products stay finite in float32
    for (std::size_t i = 0; i < b.size(); ++i) tot += (long double)b[i] * b[i];
    CHECK(fusecl::sum(hb * hb).to_host()[0] == Approx(double(tot)).epsilon(1e-5));
    CHECK(fusecl::argmin(hb).to_host()[0] == std::min_element(b.begin(), b.end()) - b.begin());
  }
  std::vector<float> out(a.size(), -1.0f);
  fusecl::detail::set_stream_fault(3);
  CHECK_THROWS_WITH((ha - hb).to_host(std::span<float>(out)), Contains("fault injected"));
  CHECK_THROWS_WITH(fusecl::sum(ha).to_host(), Contains("fault injected"));
  fusecl::detail::set_stream_fault(-1);
  std::fill(out.begin(), out.end(), -2.0f);
  fusecl::finish();
  CHECK(out.back() == -2.0f);  // nothing still queued writes into it
  (ha - hb).to_host(std::span<float>(out));
  CHECK(out.back() == a.back() - b.back());
}
