package core

import "strconv"

// Metric is a metric of the samples form (docs/protocol.md, Metrics): one total per timed
// sample of Iters iterations; or, if Scalar, of the scalar form: one Value per process;
// or, if Histogram is set, of the histogram form: an HdrHistogram, V2 compressed, base64.
type Metric struct {
	Name, Unit string
	Iters      uint64
	Samples    []uint64
	Scalar     bool
	Value      float64
	Histogram  string
}

// ScalarMetric is a metric of the scalar form.
func ScalarMetric(name, unit string, value float64) Metric {
	return Metric{Name: name, Unit: unit, Scalar: true, Value: value}
}

func (m Metric) json() string {
	var j Object
	j.Str("unit", m.Unit)
	switch {
	case m.Scalar:
		j.Raw("value", strconv.FormatFloat(m.Value, 'f', -1, 64))
	case m.Histogram != "":
		j.Str("histogram", m.Histogram)
	default:
		j.Num("iters", m.Iters).Raw("samples", List(m.Samples))
	}
	return j.Text()
}

// header is what every result starts with: the driver's identity, the cell, the role.
func header(r *Run, role string) *Object {
	j := &Object{}
	j.Num("protocol", Protocol).Str("lang", Lang).Str("toolchain", Toolchain).Str("driver", Driver).
		Str("suite", r.Suite.Name).Str("case", r.Case).Str("lib", r.Lib.Name).
		Raw("params", Pairs(r.Params)).Str("role", role)
	return j
}

// PrintResult prints a local or client result: the cell, the warm-up, the metrics, the
// suite's evidence (fields of its own, such as rpc's check and responses_checked), and
// the provenance. Only a verified run prints one.
func PrintResult(r *Run, role string, metrics []Metric, evidence *Object) {
	var m Object
	for _, metric := range metrics {
		m.Raw(metric.Name, metric.json())
	}
	j := header(r, role)
	j.Num("warmup", r.Warmup).Bool("verified", true).Raw("metrics", m.Text())
	if evidence.body.Len() > 0 {
		j.body.WriteString(", ")
		j.body.WriteString(evidence.body.String())
	}
	j.Raw("versions", Pairs(r.Versions()))
	PrintLine(j.Text())
}

// PrintServer prints a server's result: the cell and the suite's counts.
func PrintServer(r *Run, counts *Object) {
	j := header(r, "server")
	if counts.body.Len() > 0 {
		j.body.WriteString(", ")
		j.body.WriteString(counts.body.String())
	}
	j.Bool("verified", true).Raw("versions", Pairs(r.Versions()))
	PrintLine(j.Text())
}
