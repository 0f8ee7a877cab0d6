//go:build darwin || freebsd || netbsd || openbsd

package layout

const mapNoReserve = 0
