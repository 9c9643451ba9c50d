#include "tessera/buffer.hpp"

#include <cstring>
#include <limits>
#include <string>

#include "queue_state.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"

namespace tessera {

std::size_t checked_bytes(std::int64_t count, std::size_t elem_size, const char* what) {
  if (count < 0) throw InvalidArgument(std::string(what) + " is negative (" + std::to_string(count) + ")");
  if (static_cast<std::uint64_t>(count) > std::numeric_limits<std::size_t>::max() / elem_size / 2)
    throw InvalidArgument(std::string(what) + " of " + std::to_string(count) + " elements overflows the address space");
  return static_cast<std::size_t>(count) * elem_size;
}

Buffer::Buffer(const Device& device, std::size_t bytes) : device_(device), bytes_(bytes) {
  if (!device_) throw InvalidArgument("Buffer: the device handle is empty (use Device::open)");
  if (bytes_ > 0) handle_ = device_.backend().allocate(bytes_);
}

Buffer Buffer::wrap(const Device& device, void* native, std::size_t bytes, std::shared_ptr<void> keep_alive) {
  if (!device) throw InvalidArgument("Buffer::wrap: the device handle is empty (use Device::open)");
  if (native == nullptr) throw InvalidArgument("Buffer::wrap: the memory to wrap is null");
  Buffer b;
  b.device_ = device;
  b.handle_ = device.backend().wrap_memory(native, bytes);
  b.bytes_ = bytes;
  b.owned_ = false;
  b.keep_alive_ = std::move(keep_alive);
  return b;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::move(other.device_)),
      handle_(other.handle_),
      bytes_(other.bytes_),
      owned_(other.owned_),
      keep_alive_(std::move(other.keep_alive_)) {
  other.handle_ = nullptr;
  other.bytes_ = 0;
  other.owned_ = true;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    handle_ = other.handle_;
    bytes_ = other.bytes_;
    owned_ = other.owned_;
    keep_alive_ = std::move(other.keep_alive_);
    other.handle_ = nullptr;
    other.bytes_ = 0;
    other.owned_ = true;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (handle_ != nullptr) {
    if (owned_)
      device_.backend().deallocate(handle_);
    else
      device_.backend().release_wrapped(handle_);
  }
  handle_ = nullptr;
  bytes_ = 0;
  keep_alive_.reset();
}

void Buffer::check_range(const char* what, std::size_t offset, std::size_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw DimensionMismatch(std::string("Buffer::") + what + ": bytes [" + std::to_string(offset) + ", " +
                            std::to_string(offset + bytes) + ") of a buffer of " + std::to_string(bytes_));
}

namespace {
void check_queue(const char* what, const Queue& q, const Device& d) {
  if (q.device() != d)
    throw DeviceMismatch(std::string("Buffer::") + what + ": the queue belongs to " + q.device().spec() +
                         ", the buffer to " + d.spec());
}
}  // namespace

void Buffer::upload(const void* host_src, std::size_t bytes) { upload(device_.queue(), 0, host_src, bytes, true); }

void Buffer::download(void* host_dst, std::size_t bytes) const { download(device_.queue(), 0, host_dst, bytes, true); }

void Buffer::upload(const Queue& q, std::size_t offset, const void* host_src, std::size_t bytes, bool blocking) {
  check_range("upload", offset, bytes);
  if (bytes == 0) return;
  check_queue("upload", q, device_);
  detail::Enqueue e(q);
  e.backend().upload(e.impl(), handle_, offset, host_src, bytes, blocking);
}

void Buffer::download(const Queue& q, std::size_t offset, void* host_dst, std::size_t bytes, bool blocking) const {
  check_range("download", offset, bytes);
  if (bytes == 0) return;
  check_queue("download", q, device_);
  detail::Enqueue e(q);
  e.backend().download(e.impl(), host_dst, handle_, offset, bytes, blocking);
}

void Buffer::copy_from(const Queue& q, std::size_t offset, const Buffer& src, std::size_t src_offset,
                       std::size_t bytes) {
  check_range("copy_from", offset, bytes);
  src.check_range("copy_from", src_offset, bytes);
  if (bytes == 0) return;
  check_queue("copy_from", q, device_);
  if (src.device_ != device_)
    throw DeviceMismatch("Buffer::copy_from: the source lives on " + src.device_.spec() + ", the destination on " +
                         device_.spec() + "; copy through the host");
  if (src.handle_ == handle_ && offset < src_offset + bytes && src_offset < offset + bytes)
    throw InvalidArgument("Buffer::copy_from: the source and destination ranges overlap");
  detail::Enqueue e(q);
  e.backend().copy(e.impl(), handle_, offset, src.handle_, src_offset, bytes);
}

}  // namespace tessera
