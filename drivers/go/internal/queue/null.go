package queue

// Null is the floor of the queue suite: the same loop as wbq's, storing the timestamp and
// the values into a heap array touched before the first run, with no header and no
// publication. Its tailer reads the array back.
type Null struct {
	Writer
	buf   []uint64
	pos   int // the next entry's timestamp
	rpos  int // the tailer's position
	clock Clock
}

// newNull makes the array of one run (capacity words) and touches every page of it.
func newNull(_ string, o Options, capacity int) (impl, error) {
	n := &Null{buf: make([]uint64, capacity), clock: o.Clock}
	for i := 0; i < len(n.buf); i += pageSize / 8 {
		n.buf[i] = 1 // a store faults the page in; a fresh heap span may be untouched zeros
	}
	return n, nil
}

func (n *Null) Start(maxLongs int) error {
	e := n.buf[n.pos : n.pos+1+maxLongs]
	var ts int64
	if n.clock == TSC {
		ts = rdtsc()
	} else {
		ts = Nanotime()
	}
	e[0] = uint64(ts)
	n.Writer = Writer{payload: e[1:]}
	return nil
}

func (n *Null) End() { n.pos += 1 + n.Writer.n }

func (n *Null) writer() *Writer { return &n.Writer }

// Pretouch: the array was touched when it was made and is reused by every run.
func (n *Null) Pretouch() error { return nil }

func (n *Null) ReadBack(longs int) (int64, []uint64, error) {
	if n.rpos+1+longs > n.pos {
		return 0, nil, errNullShort
	}
	e := n.buf[n.rpos : n.rpos+1+longs]
	n.rpos += 1 + longs
	return int64(e[0]), e[1:], nil
}

// Finish checks that the run wrote no more than was read, and rewinds the array.
func (n *Null) Finish() error {
	if n.rpos != n.pos {
		return errNullLong
	}
	n.pos, n.rpos = 0, 0
	return nil
}

func (n *Null) Cycles() (int64, int) { return 0, 0 }
func (n *Null) Close() error         { return nil }

type nullError string

func (e nullError) Error() string { return string(e) }

const (
	errNullShort = nullError("null: the array holds fewer entries than the run wrote")
	errNullLong  = nullError("null: the array holds more than the run's entries")
)
