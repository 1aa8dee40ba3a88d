# xxHash from the system (Debian: libxxhash-dev). fusecl uses it in its
# header-only form (XXH_INLINE_ALL), so nothing links against libxxhash and a
# build carries no runtime dependency on it.
find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
if(NOT TARGET fusecl::xxhash)
  add_library(fusecl::xxhash INTERFACE IMPORTED)
  set_target_properties(fusecl::xxhash PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${XXHASH_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "XXH_INLINE_ALL")
endif()
