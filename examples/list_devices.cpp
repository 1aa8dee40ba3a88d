// Lists the OpenCL devices fusecl can use, with the P:D id that FUSECL_DEVICE
// accepts, and marks the one fusecl picks. tools/fusecl-info prints far more;
// this is the smallest program that shows the public device API.
#include <fusecl/device.hpp>
#include <fusecl/error.hpp>

#include <cstdio>
#include <exception>

int main() {
  try {
    const auto all = fusecl::devices();
    const auto& chosen = fusecl::device();
    for (const auto& d : all) {
      const bool is_chosen = d.platform_index == chosen.platform_index && d.device_index == chosen.device_index;
      std::printf("%c %s  %-11s %s (%s, %s)\n", is_chosen ? '*' : ' ', d.id().c_str(), d.type.c_str(),
                  d.name.c_str(), d.platform_name.c_str(), d.version.c_str());
    }
    std::printf("* = used by fusecl: %s\n", fusecl::device_choice_reason().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "list_devices: %s\n", e.what());
    return 1;
  }
}
