// Package cfbgen writes compound files (OLE2, MS-CFB version 3) for
// tests: Outlook messages (Msg), and the root streams by which a Word,
// Excel or PowerPoint 97-2003 file is told apart. Streams under 4,096
// bytes are kept in the mini stream, as the format requires.
package cfbgen

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// Storage is a storage of a compound file: streams and storages by
// name.
type Storage struct {
	Streams  map[string][]byte
	Storages map[string]*Storage
}

const (
	sector     = 512
	miniSector = 64
	cutoff     = 4096
	endChain   = 0xFFFFFFFE
	freeSect   = 0xFFFFFFFF
	fatSect    = 0xFFFFFFFD
	noStream   = 0xFFFFFFFF
)

type dirEntry struct {
	name               string
	typ                byte // 1 storage, 2 stream, 5 root
	left, right, child uint32
	start              uint32
	size               uint64
	data               []byte
	children           []int
}

// Write returns root as a compound file.
func Write(root *Storage) []byte {
	var entries []*dirEntry
	var add func(name string, s *Storage, typ byte) int
	add = func(name string, s *Storage, typ byte) int {
		i := len(entries)
		e := &dirEntry{name: name, typ: typ, left: noStream, right: noStream, child: noStream}
		entries = append(entries, e)
		for _, n := range sortedKeys(s.Streams) {
			j := len(entries)
			entries = append(entries, &dirEntry{name: n, typ: 2, left: noStream, right: noStream, child: noStream, data: s.Streams[n], size: uint64(len(s.Streams[n]))})
			e.children = append(e.children, j)
		}
		for _, n := range sortedKeys(s.Storages) {
			e.children = append(e.children, add(n, s.Storages[n], 1))
		}
		// The children as a chain of right siblings (a tree all black).
		for k, c := range e.children {
			if k == 0 {
				e.child = uint32(c)
			}
			if k+1 < len(e.children) {
				entries[c].right = uint32(e.children[k+1])
			}
		}
		return i
	}
	add("Root Entry", root, 5)

	// The mini stream: small streams, 64 bytes a mini sector.
	var mini []byte
	var miniFAT []uint32
	var big []*dirEntry
	for _, e := range entries {
		if e.typ != 2 || len(e.data) == 0 {
			if e.typ == 2 {
				e.start = endChain
			}
			continue
		}
		if len(e.data) >= cutoff {
			big = append(big, e)
			continue
		}
		e.start = uint32(len(miniFAT))
		n := (len(e.data) + miniSector - 1) / miniSector
		for k := range n {
			if k+1 < n {
				miniFAT = append(miniFAT, uint32(len(miniFAT)+1))
			} else {
				miniFAT = append(miniFAT, endChain)
			}
		}
		mini = append(mini, e.data...)
		mini = append(mini, make([]byte, n*miniSector-len(e.data))...)
	}
	sectors := func(n int) int { return (n + sector - 1) / sector }
	dirSectors := sectors(len(entries) * 128)
	miniFATSectors := sectors(len(miniFAT) * 4)
	miniSectors := sectors(len(mini))
	bigSectors := 0
	for _, e := range big {
		bigSectors += sectors(len(e.data))
	}
	data := dirSectors + miniFATSectors + miniSectors + bigSectors
	fatSectors := 1
	for fatSectors*(sector/4) < data+fatSectors {
		fatSectors++
	}
	if fatSectors > 109 {
		panic("cfbgen: more than 109 FAT sectors")
	}
	fat := make([]uint32, fatSectors*(sector/4))
	for i := range fat {
		fat[i] = freeSect
	}
	next := 0
	chain := func(n int) uint32 {
		if n == 0 {
			return endChain
		}
		start := next
		for k := range n {
			if k+1 < n {
				fat[next] = uint32(next + 1)
			} else {
				fat[next] = endChain
			}
			next++
		}
		return uint32(start)
	}
	for range fatSectors {
		fat[next] = fatSect
		next++
	}
	dirStart := chain(dirSectors)
	miniFATStart := chain(miniFATSectors)
	entries[0].start = chain(miniSectors)
	entries[0].size = uint64(len(mini))
	for _, e := range big {
		e.start = chain(sectors(len(e.data)))
	}

	out := make([]byte, sector*(1+next))
	h := out[:sector]
	copy(h, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")
	le := binary.LittleEndian
	le.PutUint16(h[24:], 0x3E)
	le.PutUint16(h[26:], 3)
	le.PutUint16(h[28:], 0xFFFE)
	le.PutUint16(h[30:], 9)
	le.PutUint16(h[32:], 6)
	le.PutUint32(h[44:], uint32(fatSectors))
	le.PutUint32(h[48:], dirStart)
	le.PutUint32(h[56:], cutoff)
	le.PutUint32(h[60:], miniFATStart)
	le.PutUint32(h[64:], uint32(miniFATSectors))
	le.PutUint32(h[68:], endChain)
	for i := range 109 {
		v := uint32(freeSect)
		if i < fatSectors {
			v = uint32(i)
		}
		le.PutUint32(h[76+4*i:], v)
	}
	at := func(sn uint32) []byte { return out[sector*(1+int(sn)):] }
	for i, v := range fat {
		le.PutUint32(at(0)[4*i:], v)
	}
	for i, e := range entries {
		b := at(dirStart)[128*i : 128*i+128]
		name := utf16.Encode([]rune(e.name))
		for k, u := range name {
			le.PutUint16(b[2*k:], u)
		}
		le.PutUint16(b[64:], uint16(2*(len(name)+1)))
		b[66], b[67] = e.typ, 1
		le.PutUint32(b[68:], e.left)
		le.PutUint32(b[72:], e.right)
		le.PutUint32(b[76:], e.child)
		le.PutUint32(b[116:], e.start)
		le.PutUint64(b[120:], e.size)
	}
	for i := len(entries); i < dirSectors*4; i++ { // unused entries
		b := at(dirStart)[128*i : 128*i+128]
		le.PutUint32(b[68:], noStream)
		le.PutUint32(b[72:], noStream)
		le.PutUint32(b[76:], noStream)
	}
	if miniFATSectors > 0 {
		mf := at(miniFATStart)[:miniFATSectors*sector]
		for i := range len(mf) / 4 {
			v := uint32(freeSect)
			if i < len(miniFAT) {
				v = miniFAT[i]
			}
			le.PutUint32(mf[4*i:], v)
		}
	}
	if miniSectors > 0 {
		copy(at(entries[0].start), mini)
	}
	for _, e := range big {
		copy(at(e.start), e.data)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Unicode returns s as a PT_UNICODE property stream holds it.
func Unicode(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// Prop is a fixed-size property of a property stream: a tag (ID << 16 |
// type) and its value (PT_LONG, PT_BOOLEAN, PT_SYSTIME).
type Prop struct {
	Tag   uint32
	Value uint64
}

// Properties returns a property stream of header bytes of header (32
// for a message, 24 for an attached one, 8 for a recipient or an
// attachment) and the fixed-size properties.
func Properties(header int, props ...Prop) []byte {
	b := make([]byte, header, header+16*len(props))
	for _, p := range props {
		var e [16]byte
		binary.LittleEndian.PutUint32(e[0:], p.Tag)
		binary.LittleEndian.PutUint32(e[4:], 6) // readable, writable
		binary.LittleEndian.PutUint64(e[8:], p.Value)
		b = append(b, e[:]...)
	}
	return b
}

// Message is an Outlook message to write.
type Message struct {
	Subject, SenderName, SenderEmail string
	To, Cc                           [][2]string // name, address
	Body                             string      // PR_BODY, when not empty
	HTML                             string      // PR_BODY_HTML, when not empty
	RTF                              []byte      // PR_RTF_COMPRESSED, when not nil
	Headers                          string      // PR_TRANSPORT_MESSAGE_HEADERS
	SubmitTime                       uint64      // FILETIME
	Attachments                      []Attachment
}

// Attachment is a file attached to a message, or a message (Message set).
type Attachment struct {
	Name, Mime string
	Data       []byte
	Message    *Message
}

func str(id uint16) string { return fmt.Sprintf("__substg1.0_%04X001F", id) }

// Storage returns the message as the storage of a .msg file (header 32)
// or of an attached message (header 24).
func (m Message) Storage(header int) *Storage {
	s := &Storage{Streams: map[string][]byte{}, Storages: map[string]*Storage{}}
	set := func(id uint16, v string) {
		if v != "" {
			s.Streams[str(id)] = Unicode(v)
		}
	}
	set(0x0037, m.Subject)
	set(0x0C1A, m.SenderName)
	set(0x5D01, m.SenderEmail)
	set(0x1000, m.Body)
	set(0x007D, m.Headers)
	if m.HTML != "" {
		s.Streams["__substg1.0_10130102"] = []byte(m.HTML)
	}
	if m.RTF != nil {
		s.Streams["__substg1.0_10090102"] = m.RTF
	}
	var props []Prop
	if m.SubmitTime != 0 {
		props = append(props, Prop{Tag: 0x00390040, Value: m.SubmitTime})
	}
	s.Streams["__properties_version1.0"] = Properties(header, props...)
	n := 0
	for typ, list := range [][][2]string{m.To, m.Cc} {
		for _, r := range list {
			rs := &Storage{Streams: map[string][]byte{
				str(0x3001): Unicode(r[0]), str(0x39FE): Unicode(r[1]),
				"__properties_version1.0": Properties(8, Prop{Tag: 0x0C150003, Value: uint64(typ + 1)}),
			}}
			s.Storages[fmt.Sprintf("__recip_version1.0_#%08X", n)] = rs
			n++
		}
	}
	for i, a := range m.Attachments {
		as := &Storage{Streams: map[string][]byte{}, Storages: map[string]*Storage{}}
		if a.Name != "" {
			as.Streams[str(0x3707)] = Unicode(a.Name)
		}
		if a.Mime != "" {
			as.Streams[str(0x370E)] = Unicode(a.Mime)
		}
		method := uint64(1)
		if a.Message != nil {
			method = 5
			as.Storages["__substg1.0_3701000D"] = a.Message.Storage(24)
		} else {
			as.Streams["__substg1.0_37010102"] = a.Data
		}
		as.Streams["__properties_version1.0"] = Properties(8, Prop{Tag: 0x37050003, Value: method})
		s.Storages[fmt.Sprintf("__attach_version1.0_#%08X", i)] = as
	}
	return s
}

// Msg returns the message as a .msg file.
func (m Message) Msg() []byte {
	s := m.Storage(32)
	s.Storages["__nameid_version1.0"] = &Storage{Streams: map[string][]byte{"__substg1.0_00020102": nil}}
	return Write(s)
}

// Legacy returns a compound file with the root streams of a Word
// ("WordDocument"), Excel ("Workbook") or PowerPoint ("PowerPoint
// Document") 97-2003 file, or of an encrypted OOXML one
// ("EncryptedPackage"), named by stream; their content is filler.
func Legacy(stream string) []byte {
	return Write(&Storage{Streams: map[string][]byte{
		stream:                   []byte(strings.Repeat("filler ", 1000)),
		"\x05SummaryInformation": make([]byte, 200),
	}})
}
