// bson: MongoDB's Go driver's bson package (go.mongodb.org/mongo-driver/v2/bson) on
// signedLog (signed.go: its bson tags, int32 fields written as int32 and the two int64
// fields as int64, in the JSON's order; the batch's slice as a BSON array). populate
// converts the records into the kept (reused) or a new (fresh) slice. serialize: buffer
// reused, a kept Encoder over a document writer into a kept bytes.Buffer (the writer
// builds each document in its own kept buffer and copies it out when it ends); fresh,
// bson.Marshal, a new slice. deserialize: bson.Unmarshal into new structs, which checks
// the document's lengths and every element's type as it decodes (validated); it copies
// every string (owned: the package has no decoding into views of the input).
package codec

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"
)

type bsonLib struct {
	signedForm
	out bytes.Buffer
	enc *bson.Encoder
}

func newBSON(v Variant) Impl {
	b := &bsonLib{signedForm: signedForm{batch: v.Batch, fresh: v.Fresh}}
	b.enc = bson.NewEncoder(bson.NewDocumentWriter(&b.out))
	return b
}

func (b *bsonLib) Serialize() ([]byte, error) {
	if b.fresh {
		return bson.Marshal(b.value())
	}
	b.out.Reset()
	err := b.enc.Encode(b.value())
	return b.out.Bytes(), err
}

func (b *bsonLib) Deserialize(in []byte) (uint64, error) {
	return b.deserialize(in, bson.Unmarshal)
}
