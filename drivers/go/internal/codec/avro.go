// hamba-avro: github.com/hamba/avro/v2 on signedLog (signed.go: its avro tags, Avro int as
// int32 and long as int64), with the schemas avro.Parse reads from schemas/log.avsc and
// schemas/logs.avsc (embedded by tools/gencode). One datum in the binary encoding, no
// container or header. The configuration writes an array in one block of items with
// only its count (fastavro's form: BlockLength up to records.MaxBatch, no block byte
// size) and refuses a block that claims more than records.MaxBatch items before
// allocating them (MaxSliceAllocSize; by default the limit is the largest heap
// allocation, so a few bytes could ask for terabytes). populate converts the records
// into the kept (reused) or a new (fresh) slice. serialize: buffer reused, a kept
// avro.Writer with no output (its buffer is the encoding), reset and written with the
// schema; fresh, Marshal, a new slice. deserialize: a kept avro.Reader reset over the
// input reads the datum into new structs, every value read against the schema
// (validated). Not Unmarshal: it takes the reader's io.EOF for success, so a truncated
// input would decode as zeros and empty strings; here running out of input is an error.
// Strings are copied out of the input (owned: the reader copies them into its own slab).
package codec

import (
	"github.com/hamba/avro/v2"

	"wirebench/drivers/go/internal/codec/records"
	codecavro "wirebench/drivers/go/internal/gen/avro"
)

var (
	avroAPI = avro.Config{BlockLength: records.MaxBatch, DisableBlockSizeHeader: true,
		MaxSliceAllocSize: records.MaxBatch}.Freeze()
	avroLogSchema  = avro.MustParse(codecavro.Log)
	avroLogsSchema = avro.MustParse(codecavro.Logs)
)

type avroLib struct {
	signedForm
	schema avro.Schema
	w      *avro.Writer
	r      *avro.Reader
}

func newAvro(v Variant) Impl {
	schema := avroLogSchema
	if v.Batch {
		schema = avroLogsSchema
	}
	return &avroLib{signedForm: signedForm{batch: v.Batch, fresh: v.Fresh}, schema: schema,
		w: avro.NewWriter(nil, 1024, avro.WithWriterConfig(avroAPI)),
		r: avro.NewReader(nil, 0, avro.WithReaderConfig(avroAPI))}
}

func (a *avroLib) Serialize() ([]byte, error) {
	if a.fresh {
		return avroAPI.Marshal(a.schema, a.value())
	}
	a.w.Reset(nil)
	a.w.WriteVal(a.schema, a.value())
	return a.w.Buffer(), a.w.Error
}

func (a *avroLib) Deserialize(in []byte) (uint64, error) {
	return a.deserialize(in, a.unmarshal)
}

func (a *avroLib) unmarshal(in []byte, v any) error {
	a.r.Reset(in)
	a.r.Error = nil
	a.r.ReadVal(a.schema, v)
	return a.r.Error
}
