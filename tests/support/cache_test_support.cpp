#include "support/cache_test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace fusecl::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string templ = (fs::temp_directory_path() / "fusecl-test-XXXXXX").string();
  if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  // Tests make folders unwritable on purpose; make them removable again first.
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

rt::CacheKey test_key(int n) {
  rt::KeyInputs in;
  in.source = "__kernel void k" + std::to_string(n) + "() {}";
  return rt::cache_key(in);
}

std::vector<unsigned char> test_payload(int n, std::size_t size) {
  std::vector<unsigned char> p(size);
  for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<unsigned char>(i * 31 + std::size_t(n) * 7);
  return p;
}

std::vector<unsigned char> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::size_t Diagnostics::warnings() const {
  std::size_t n = 0;
  for (const std::string& l : lines) n += l.starts_with("fusecl: warning:");
  return n;
}

bool Diagnostics::any_contains(const std::string& text) const {
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

rt::DiskCacheSettings settings_for(const fs::path& dir, Diagnostics& diag) {
  rt::DiskCacheSettings s;
  s.dir = dir;
  s.sink = [&diag](const std::string& line) { diag.lines.push_back(line); };
  return s;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

CommandResult run_command(const std::string& command) {
  TempDir capture;
  const fs::path out = capture.path() / "out", err = capture.path() / "err";
  const std::string cmd = command + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  CommandResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CommandResult run_cache_tool(const std::string& args) {
  return run_command(shell_quote((fs::path(tools_dir()) / "fusecl-cache").string()) + " " + args);
}

CommandResult run_this_test_binary(const std::string& env, const std::string& test_name) {
  // /proc/self/exe: this very test binary, wherever it was copied to.
  return run_command("env " + env + " " + shell_quote(fs::read_symlink("/proc/self/exe").string()) + " " +
                     shell_quote(test_name));
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (!it->is_directory(ec)) out.push_back(it->path());
  return out;
}

}  // namespace fusecl::test

namespace fusecl::test {
std::string tools_dir() {
  const char* v = std::getenv("FUSECL_TOOLS_DIR");
  return v && *v ? std::string(v) : std::string(FUSECL_TOOLS_DIR);
}
}  // namespace fusecl::test
