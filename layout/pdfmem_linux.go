package layout

import "syscall"

// mapNoReserve keeps a reserved memory out of the system's commit charge
// until it is touched.
const mapNoReserve = syscall.MAP_NORESERVE
