#include "plugin_loader.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <vector>

namespace tessera::detail {

namespace {

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string own_folder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&plugin_search_dirs), &info) == 0 || info.dli_fname == nullptr) return {};
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The ELF machine this library was built for: a plugin for another one cannot be loaded.
constexpr std::uint16_t host_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__arm__)
  return EM_ARM;
#else
  return EM_NONE;  // unknown: not checked
#endif
}

template <class Ehdr, class Phdr>
std::string check_elf_layout(std::ifstream& in, std::uint64_t size) {
  Ehdr eh{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return "shorter than an ELF header";
  if (eh.e_type != ET_DYN) return "not a shared object (ELF type " + std::to_string(eh.e_type) + ")";
  if (host_machine() != EM_NONE && eh.e_machine != host_machine())
    return "built for another machine (ELF machine " + std::to_string(eh.e_machine) + ")";
  if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum == 0) return "no valid program header table";
  const std::uint64_t ph_end = static_cast<std::uint64_t>(eh.e_phoff) + std::uint64_t{eh.e_phnum} * eh.e_phentsize;
  if (ph_end > size) return "truncated: its program headers end at byte " + std::to_string(ph_end);
  const std::uint64_t sh_end = static_cast<std::uint64_t>(eh.e_shoff) + std::uint64_t{eh.e_shnum} * eh.e_shentsize;
  if (eh.e_shoff != 0 && sh_end > size) return "truncated: its section headers end at byte " + std::to_string(sh_end);
  std::vector<Phdr> ph(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  if (!in.read(reinterpret_cast<char*>(ph.data()), static_cast<std::streamsize>(ph.size() * sizeof(Phdr))))
    return "unreadable program headers";
  for (const Phdr& p : ph) {
    const std::uint64_t end = static_cast<std::uint64_t>(p.p_offset) + p.p_filesz;
    if (p.p_type == PT_LOAD && end > size)
      return "truncated: a loadable segment ends at byte " + std::to_string(end);
  }
  return {};
}

// What dlopen would choke on (a truncated file maps pages past its end: SIGBUS in the loader,
// inside every program that lists devices), checked from the file before it is opened: the ELF
// identity, class and machine, and that the program headers, section headers and loadable
// segments lie within the file. Empty when it looks loadable.
std::string check_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be read";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  unsigned char ident[EI_NIDENT] = {};
  in.seekg(0);
  if (size < EI_NIDENT || !in.read(reinterpret_cast<char*>(ident), EI_NIDENT)) return "shorter than an ELF header";
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return "not an ELF file";
  if (ident[EI_CLASS] == ELFCLASS64 && sizeof(void*) == 8) return check_elf_layout<Elf64_Ehdr, Elf64_Phdr>(in, size);
  if (ident[EI_CLASS] == ELFCLASS32 && sizeof(void*) == 4) return check_elf_layout<Elf32_Ehdr, Elf32_Phdr>(in, size);
  return "an ELF file of the other word size (32/64-bit)";
}

}  // namespace

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TESSERA_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  const std::string own = own_folder();
  if (!own.empty()) {
    dirs.push_back(own);
    dirs.push_back(own + "/tessera");
  }
  return dirs;
}

PluginProbe probe_plugin(const std::string& name, const std::vector<std::string>& dirs) {
  PluginProbe probe;
  const std::string file = "libtessera-" + name + ".so";
  for (const auto& dir : dirs) {
    if (is_file(dir + "/" + file)) {
      probe.path = dir + "/" + file;
      break;
    }
  }
  if (probe.path.empty()) {
    std::string searched;
    for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
    probe.reason = file + " not found (searched: " + (searched.empty() ? "nothing" : searched) +
                   "; set TESSERA_PLUGIN_PATH to the folder that holds it)";
    return probe;
  }
  if (const std::string bad = check_elf(probe.path); !bad.empty()) {
    probe.reason = "cannot load " + probe.path + ": " + bad;
    return probe;
  }
  void* handle = ::dlopen(probe.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    probe.reason = "cannot load " + probe.path + ": " + (err ? err : "unknown dlopen error");
    return probe;
  }
  // Never dlclose: backends created from it may live until exit, and the
  // plugin's runtime (CUDA, OpenCL ICD) does not like being unloaded.
  auto entry = reinterpret_cast<TesseraPluginEntryFn>(::dlsym(handle, TESSERA_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    probe.reason = probe.path + " has no entry point " TESSERA_PLUGIN_ENTRY_SYMBOL ": not a Tessera plugin";
    return probe;
  }
  const TesseraPluginV1* api = entry();
  if (api == nullptr) {
    probe.reason = probe.path + ": entry point returned nothing";
    return probe;
  }
  if (api->abi_version != TESSERA_PLUGIN_ABI_VERSION) {
    probe.reason = probe.path + " has plugin ABI version " + std::to_string(api->abi_version) +
                   ", this libtessera expects " + std::to_string(TESSERA_PLUGIN_ABI_VERSION) +
                   ": rebuild the plugin with this version of Tessera";
    return probe;
  }
  char reason[1024] = {0};
  // device_count must not throw (plugin_abi.hpp), but it queries a driver, and a plugin that
  // lets an exception out anyway must cost only its own backend, not every program that lists
  // devices (this runs inside the registry's constructor).
  int count = 0;
  try {
    count = api->device_count(reason, sizeof reason);
  } catch (const std::exception& e) {
    probe.reason = probe.path + ": device_count threw (a plugin bug): " + e.what();
    return probe;
  } catch (...) {
    probe.reason = probe.path + ": device_count threw (a plugin bug)";
    return probe;
  }
  reason[sizeof reason - 1] = '\0';
  probe.api = api;
  probe.device_count = count > 0 ? count : 0;
  if (probe.device_count == 0) probe.reason = reason[0] ? reason : "the plugin found no device";
  return probe;
}

}  // namespace tessera::detail
