// The device registry: built-in backends, plugins found at run time, spec parsing, "auto".
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "builtin_backends.hpp"
#include "plugin_loader.hpp"
#include "queue_state.hpp"
#include "tessera/device.hpp"
#include "tessera/errors.hpp"

#ifndef TESSERA_OPENCL_PLUGIN_BUILT
#define TESSERA_OPENCL_PLUGIN_BUILT 0
#endif
#ifndef TESSERA_CUDA_PLUGIN_BUILT
#define TESSERA_CUDA_PLUGIN_BUILT 0
#endif

namespace tessera {

class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  std::vector<BackendStatus> statuses() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<BackendStatus> out;
    for (auto& e : entries_) out.push_back(probed(e).status);
    return out;
  }

  std::vector<DeviceInfo> devices() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<DeviceInfo> out;
    for (auto& e : entries_)
      for (int i = 0; i < probed(e).status.device_count; ++i) {
        // One device that cannot be opened must not hide the others (nor make every program
        // that lists devices fail): it is left out here, and open_locked has put the reason
        // into backends().
        try {
          out.push_back(open_locked(e, i).info());
        } catch (const std::exception&) {
        }
      }
    return out;
  }

  Device open(const std::string& spec) {
    if (spec == "auto" || spec.empty()) return open_auto();
    std::string name = spec;
    int index = 0;
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
      name = spec.substr(0, colon);
      const std::string digits = spec.substr(colon + 1);
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw InvalidArgument("device spec '" + spec + "': expected NAME or NAME:N with N a device index");
      index = std::stoi(digits);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Entry* entry = find(name);
    if (entry == nullptr) throw InvalidArgument("unknown device spec '" + spec + "': expected " + known_specs());
    probed(*entry);
    if (!entry->status.available)
      throw BackendUnavailable("device '" + spec + "': backend " + name + " is unavailable: " + entry->status.reason);
    if (index >= entry->status.device_count)
      throw BackendUnavailable("device '" + spec + "': backend " + name + " has " +
                               std::to_string(entry->status.device_count) + " device(s), indices 0.." +
                               std::to_string(entry->status.device_count - 1));
    return open_locked(*entry, index);
  }

 private:
  struct Entry {
    BackendStatus status;
    // Plugins are opened lazily: only when their backend is listed or opened, so a damaged
    // OpenCL plugin cannot touch a program that only ever opens "cpu".
    std::function<void(Entry&)> probe;
    std::function<std::unique_ptr<Backend>(int)> create;
    std::vector<std::weak_ptr<Backend>> opened;     // one per device index
    std::vector<std::shared_ptr<const DeviceInfo>> infos;
    std::vector<std::string> open_errors;  // per device index: why creating it failed, if it did
    std::vector<std::weak_ptr<detail::QueueState>> queues;  // the default queue of each open device
  };

  Registry() {
    add_builtin("reference", make_reference_backend);
    add_builtin("cpu", make_cpu_backend);
    const auto dirs = detail::plugin_search_dirs();
    add_plugin("cuda", TESSERA_CUDA_PLUGIN_BUILT, "TESSERA_WITH_CUDA", dirs);
    add_plugin("opencl", TESSERA_OPENCL_PLUGIN_BUILT, "TESSERA_WITH_OPENCL", dirs);
    // Further plugins (third-party backends, the loader's test plugins), named by the user.
    if (const char* extra = std::getenv("TESSERA_EXTRA_PLUGINS")) {
      std::string list = extra;
      for (std::size_t pos = 0; pos <= list.size();) {
        const auto comma = std::min(list.find(',', pos), list.size());
        const std::string name = list.substr(pos, comma - pos);
        if (!name.empty() && find(name) == nullptr) add_plugin(name, true, "", dirs);
        pos = comma + 1;
      }
    }
  }

  void add_builtin(const std::string& name, std::unique_ptr<Backend> (*factory)()) {
    Entry e;
    e.status = {name, true, 1, "", "built in"};
    e.create = [factory](int) { return factory(); };
    entries_.push_back(std::move(e));
  }

  void add_plugin(const std::string& name, bool built, const std::string& option,
                  const std::vector<std::string>& dirs) {
    Entry e;
    e.status.name = name;
    if (!built) {
      e.status.reason = "not built: this libtessera was configured without " + option +
                        " (or its toolkit was not found at configure time)";
      entries_.push_back(std::move(e));
      return;
    }
    e.status.reason = "not probed yet";
    e.probe = [name, dirs](Entry& self) {
      const detail::PluginProbe probe = detail::probe_plugin(name, dirs);
      self.status.location = probe.path;
      self.status.device_count = probe.device_count;
      self.status.available = probe.device_count > 0;
      self.status.reason = probe.reason;
      if (probe.api != nullptr) {
        const TesseraPluginV1* api = probe.api;
        self.create = [api](int index) { return std::unique_ptr<Backend>(api->create_backend(index)); };
      }
    };
    entries_.push_back(std::move(e));
  }

  // The entry with its plugin probed (once; the caller holds the lock).
  Entry& probed(Entry& e) {
    if (e.probe) {
      const auto probe = std::move(e.probe);
      e.probe = nullptr;
      probe(e);
    }
    return e;
  }

  Entry* find(const std::string& name) {
    for (auto& e : entries_)
      if (e.status.name == name) return &e;
    return nullptr;
  }

  std::string known_specs() const {
    std::string s = "auto";
    for (const auto& e : entries_) s += ", " + e.status.name + (e.status.name == "reference" || e.status.name == "cpu" ? "" : "[:N]");
    return s;
  }

  Device open_locked(Entry& e, int index) {
    if (e.opened.size() < static_cast<std::size_t>(e.status.device_count)) {
      e.opened.resize(static_cast<std::size_t>(e.status.device_count));
      e.infos.resize(static_cast<std::size_t>(e.status.device_count));
      e.open_errors.resize(static_cast<std::size_t>(e.status.device_count));
      e.queues.resize(static_cast<std::size_t>(e.status.device_count));
    }
    const auto i = static_cast<std::size_t>(index);
    if (auto live = e.opened[i].lock()) {
      std::shared_ptr<detail::QueueState> queue = e.queues[i].lock();
      if (!queue) {  // every handle to the device has gone, but its backend is still finishing
        queue = std::make_shared<detail::QueueState>(live, live->create_queue());
        e.queues[i] = queue;
      }
      return Device(live, e.infos[i], queue);
    }
    std::shared_ptr<Backend> backend;
    std::shared_ptr<detail::QueueState> queue;
    DeviceInfo info;
    try {
      backend = e.create(index);
      if (!backend)
        throw BackendUnavailable("backend " + e.status.name + " could not open device " + std::to_string(index));
      info = backend->info();
      queue = std::make_shared<detail::QueueState>(backend, backend->create_queue());
    } catch (const std::exception& ex) {
      note_open_failure(e, index, ex.what());
      throw;
    }
    info.backend = e.status.name;
    info.index = index;
    info.spec = e.status.device_count == 1 && (e.status.name == "reference" || e.status.name == "cpu")
                    ? e.status.name
                    : e.status.name + ":" + std::to_string(index);
    e.opened[i] = backend;
    e.infos[i] = std::make_shared<const DeviceInfo>(std::move(info));
    e.queues[i] = queue;
    return Device(backend, e.infos[i], queue);
  }

  // A device the backend counted but could not create (a plugin's create_backend threw, e.g.
  // a GPU held in exclusive mode by another process) is named in the backend's reason, so
  // backends() and tessera-info say why it is missing from devices(). When no device of the
  // backend can be created, the backend becomes unavailable with that reason.
  void note_open_failure(Entry& e, int index, const std::string& what) {
    const auto i = static_cast<std::size_t>(index);
    if (!e.open_errors[i].empty()) return;
    e.open_errors[i] = what.empty() ? "no message" : what;  // non-empty marks the index as failed
    const std::string note = e.status.name + ":" + std::to_string(index) + " could not be opened: " + e.open_errors[i];
    e.status.reason += (e.status.reason.empty() ? "" : "; ") + note;
    if (std::all_of(e.open_errors.begin(), e.open_errors.end(), [](const std::string& s) { return !s.empty(); })) {
      e.status.available = false;
      e.status.device_count = 0;
    }
  }

  Device open_auto() {
    if (const char* env = std::getenv("TESSERA_DEVICE"); env != nullptr && *env != '\0' && std::string(env) != "auto")
      return open(env);
    std::lock_guard<std::mutex> lock(mutex_);
    // A GPU that fails to open is passed over for the next choice (backends() says why);
    // cpu is the last resort, so its error, if any, is the one that reaches the caller.
    if (Entry* cuda = find("cuda"); cuda != nullptr && probed(*cuda).status.available) {
      try {
        return open_locked(*cuda, 0);
      } catch (const std::exception&) {
      }
    }
    if (Entry* ocl = find("opencl"); ocl != nullptr && probed(*ocl).status.available)
      for (int i = 0; i < ocl->status.device_count; ++i) {
        try {
          Device d = open_locked(*ocl, i);
          if (d.info().type == "gpu") return d;
        } catch (const std::exception&) {
        }
      }
    return open_locked(*find("cpu"), 0);
  }

  std::mutex mutex_;
  std::vector<Entry> entries_;
};

void Device::throw_empty() {
  throw InvalidArgument("Device: the handle is empty (default-constructed or moved from); use Device::open");
}

Device Device::open(const std::string& spec) { return Registry::instance().open(spec); }
std::vector<DeviceInfo> devices() { return Registry::instance().devices(); }
std::vector<BackendStatus> backends() { return Registry::instance().statuses(); }

}  // namespace tessera
