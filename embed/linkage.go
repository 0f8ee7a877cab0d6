package embed

import (
	"debug/elf"
	"os"
	"sync"
)

// linkedStatically reports whether the running program is a statically
// linked ELF executable (no program interpreter, the dynamic loader, in
// its headers), and its path. Such a program cannot load shared libraries.
// Other formats (macOS, Windows) and an unreadable executable count as
// dynamic, as they load libraries as usual.
var linkedStatically = sync.OnceValues(func() (bool, string) {
	exe, err := os.Executable()
	if err != nil {
		return false, ""
	}
	return isStaticELF(exe), exe
})

// isStaticELF reports whether the file at path is an ELF executable
// without a program interpreter.
func isStaticELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return false
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	// A shared library (ET_DYN without an interpreter) is not a program;
	// a static-pie executable is ET_DYN with no interpreter and no
	// dependencies.
	if f.Type == elf.ET_DYN {
		libs, _ := f.ImportedLibraries()
		return len(libs) == 0
	}
	return true
}
