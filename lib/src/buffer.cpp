#include "tessera/buffer.hpp"

#include <cstring>
#include <limits>
#include <string>

#include "tessera/errors.hpp"

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

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::move(other.device_)), handle_(other.handle_), bytes_(other.bytes_) {
  other.handle_ = nullptr;
  other.bytes_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    handle_ = other.handle_;
    bytes_ = other.bytes_;
    other.handle_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (handle_ != nullptr) device_.backend().deallocate(handle_);
  handle_ = nullptr;
  bytes_ = 0;
}

void Buffer::upload(const void* host_src, std::size_t bytes) {
  if (bytes > bytes_)
    throw DimensionMismatch("Buffer::upload: " + std::to_string(bytes) + " bytes into a buffer of " +
                            std::to_string(bytes_));
  if (bytes > 0) device_.backend().upload(handle_, host_src, bytes);
}

void Buffer::download(void* host_dst, std::size_t bytes) const {
  if (bytes > bytes_)
    throw DimensionMismatch("Buffer::download: " + std::to_string(bytes) + " bytes from a buffer of " +
                            std::to_string(bytes_));
  if (bytes > 0) device_.backend().download(host_dst, handle_, bytes);
}

}  // namespace tessera
