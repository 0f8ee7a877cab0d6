package mapfile

import "syscall"

const populate = syscall.MAP_POPULATE
