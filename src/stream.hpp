// Evaluating expressions over host views (host_view) in chunks along the
// outermost axis: each chunk's rows of every host view the expression reads
// are made device buffers (uploaded, or read in place where the device shares
// the host's memory), the chunk is computed by the ordinary scheduler, and its
// result is written out before the next, so at most one chunk's data is on
// the device at a time, whatever the size of the host data.
//
// Row reductions and views whose rows fit a chunk are computed per chunk;
// reductions across the chunked axis (full and column reductions) combine
// per-chunk partial results on the device (argmin/argmax on the host, with
// global indices). Parts of an expression that cannot follow the chunks (a
// concatenation along the chunked axis, a reduction across it that a later
// operation reads) are evaluated whole first; a host view read across the
// chunked axis (a transpose) is uploaded whole where it fits the device
// memory limit, and raises a clear error where it does not.
#pragma once

#include "src/node.hpp"

#include <cstddef>
#include <cstdint>

namespace fusecl::detail {

/// Whether an unevaluated host view is still reachable below n, clearing the
/// `host` flag of the nodes below that no longer reach one (their host views
/// were evaluated away). The caller holds n's device lock.
bool refresh_host(Node& n);

/// Whether `root` itself can be computed in chunks of rows: not a
/// concatenation along its outermost axis, say (then its inputs are
/// evaluated first, streamed where they read host views, and it is
/// evaluated as any other node).
bool chunkable(const Node& root);

/// Evaluates `root` (whose graph reads host views) into a buffer on its
/// device: it becomes a Buffer node, as any evaluation makes it. Throws a
/// clear error when the whole result does not fit the device memory limit.
void evaluate_streamed(const NodePtr& root);

/// Whether stream_to_host can write root's value to host memory chunk by
/// chunk (otherwise evaluate it, then download: a reduction across the
/// chunked axis has a small result).
bool streams_to_host(const Node& root);

/// Computes root's value into `dst` (root->shape.size() elements of its
/// dtype) chunk by chunk; root stays lazy, and no buffer of the whole result
/// is ever made on the device.
void stream_to_host(const NodePtr& root, void* dst);

/// The first chunk's expression (host views replaced by the buffers of
/// their first rows), for kernel_source: what every chunk's kernel runs.
NodePtr first_chunk(const NodePtr& root);

/// Tests: the bytes of host data and results a chunk aims at (0: the
/// default, FUSECL_STREAM_CHUNK or 64 MiB, less where the device memory
/// limit needs); returns the previous value.
std::size_t set_stream_chunk_bytes(std::size_t bytes);
/// Tests: throw from inside the pipeline once chunk `k` has been enqueued (-1: never).
void set_stream_fault(std::int64_t k);

}  // namespace fusecl::detail
