#ifndef BOOKRULE_CSPAWN_SHIM_H
#define BOOKRULE_CSPAWN_SHIM_H

#include <spawn.h>

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+, in libc.so): declared only under `_GNU_SOURCE`,
/// which Swift's Glibc module is not built with, so it is declared here. The browser's child closes every
/// descriptor from 5 up, so it inherits nothing of bookrule's but the DevTools socket at 3 and 4.
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
