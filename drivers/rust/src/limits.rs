//! The limits on hostile input: one policy for every language's driver (fuzz/README.md),
//! set here explicitly rather than left to a library's default.

use capnp::message::ReaderOptions;

use crate::error::Failure;

/// The longest message a stream may announce (null's u32 count, protobuf's varint size,
/// capnp's segment table), refused before anything is allocated for it. Why: the largest
/// benchmark message is under 1 MiB; 64 MiB bounds what a hostile peer makes us allocate.
pub const MAX_FRAME_BYTES: u64 = 64 << 20;

/// Cap'n Proto's traversal limit, 8 Mi words (64 MiB). Why: it bounds the words a reader
/// visits (pointers to shared data amplify a small message) and capnp also refuses a
/// segment table announcing more, which makes it the capnp frame limit above.
pub const CAPNP_TRAVERSAL_LIMIT_WORDS: usize = (MAX_FRAME_BYTES / 8) as usize;

/// Cap'n Proto's nesting limit. Why: eval's expressions nest 9 deep at most and the eval
/// handlers recurse once per level, so 64 bounds their stack.
pub const CAPNP_NESTING_LIMIT: i32 = 64;

/// Every Cap'n Proto reader's options (rpc and codec).
pub const CAPNP_OPTIONS: ReaderOptions = ReaderOptions {
    traversal_limit_in_words: Some(CAPNP_TRAVERSAL_LIMIT_WORDS),
    nesting_limit: CAPNP_NESTING_LIMIT,
};

/// protobuf's recursion limit (nested messages). Why: prost's decoder recurses once per
/// nested message; prost fixes the limit at 100 (private, not configurable; its feature
/// `no-recursion-limit` stays off), so this names it and a test holds prost to it.
#[allow(dead_code)] // prost applies it itself; the tests below hold prost to it
pub const PROTOBUF_RECURSION_LIMIT: u32 = 100;

/// The null format's nesting of eval expressions (its only recursion). Why: as capnp's,
/// the decoder and the evaluation recurse once per level.
pub const NULL_NESTING_LIMIT: u32 = 64;

/// The error of a stream announcing a message over MAX_FRAME_BYTES.
pub fn frame_too_long(format: &str, size: u64) -> Failure {
    Failure(format!(
        "{format}: corrupt stream: message of {size} bytes is over the limit of \
         {MAX_FRAME_BYTES} bytes"
    ))
}

#[cfg(test)]
mod tests {
    //! Each limit held on the rpc servers (the code of `--role server`).
    use super::*;
    use crate::rpc::SUITE;

    /// What the server of `lib`'s cell (`case`, `compression`, reuse and no-reuse) says of
    /// the stream `input`: its error, or None if it served it.
    fn serve(lib: &str, case: &str, compression: &str, input: &[u8]) -> Option<String> {
        let l = SUITE.libs.iter().find(|l| l.name == lib).unwrap();
        let mut errors = [true, false].map(|reuse| {
            let cell = (l.make)(case, compression, reuse).unwrap();
            cell.server().serve(input).err().map(|e| e.0)
        });
        assert_eq!(errors[0], errors[1], "reuse and no-reuse differ");
        errors[0].take()
    }

    fn too_long(lib: &str, compression: &str, input: &[u8]) {
        let e = serve(lib, "eval", compression, input).expect("refused");
        let size = (MAX_FRAME_BYTES + 8).to_string();
        assert!(e.contains(&size), "{lib} {compression}: {e}");
        assert!(e.contains(&MAX_FRAME_BYTES.to_string()), "{e}");
    }

    #[test]
    fn frames_over_64_mib_are_refused_before_allocation() {
        let size = MAX_FRAME_BYTES + 8;
        too_long("null", "none", &(size as u32).to_le_bytes());
        let mut varint = Vec::new();
        let mut v = size;
        while v >= 0x80 {
            varint.push((v as u8) | 0x80);
            v >>= 7;
        }
        varint.push(v as u8);
        too_long("protobuf", "none", &varint);
        // One segment of 8 Mi + 1 words: a segment table announcing 64 MiB + 8 bytes.
        let words = (size / 8) as u32;
        let mut table = vec![0, 0, 0, 0];
        table.extend_from_slice(&words.to_le_bytes());
        too_long("capnp", "none", &table);
        // The same word packed: a tag naming its non-zero bytes, then those bytes.
        let mut tag = 0u8;
        let mut packed = vec![0];
        for (i, &b) in table.iter().enumerate() {
            if b != 0 {
                tag |= 1 << i;
                packed.push(b);
            }
        }
        packed[0] = tag;
        too_long("capnp", "packed", &packed);
        // At the limit, a null or protobuf frame is read (and found truncated).
        let e = serve(
            "null",
            "eval",
            "none",
            &(MAX_FRAME_BYTES as u32).to_le_bytes(),
        );
        assert!(e.unwrap().contains("truncated"));
    }

    /// A null eval request: an expression nested `depth` deep (left operands).
    fn null_expression(depth: u32) -> Vec<u8> {
        let mut m = Vec::new();
        for _ in 0..depth {
            m.extend_from_slice(&[0, 1]);
        }
        m.extend_from_slice(&[0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
        for _ in 0..depth {
            m.extend_from_slice(&3i32.to_le_bytes());
        }
        let mut framed = (m.len() as u32).to_le_bytes().to_vec();
        framed.extend_from_slice(&m);
        framed
    }

    #[test]
    fn null_nesting_limit() {
        let limit = NULL_NESTING_LIMIT;
        assert_eq!(serve("null", "eval", "none", &null_expression(limit)), None);
        let e = serve("null", "eval", "none", &null_expression(limit + 1)).unwrap();
        assert!(e.contains("nested too deeply"), "{e}");
    }

    /// A protobuf eval request nested `depth` deep.
    fn protobuf_expression(depth: u32) -> Vec<u8> {
        use crate::pb::eval::Expression;
        use prost::Message;
        let mut e = Expression {
            left_value: Some(1),
            right_value: Some(2),
            ..Default::default()
        };
        for _ in 0..depth {
            e = Expression {
                left_expression: Some(Box::new(e)),
                right_value: Some(3),
                ..Default::default()
            };
        }
        e.encode_length_delimited_to_vec()
    }

    #[test]
    fn protobuf_recursion_limit_is_prost_s() {
        // prost itself (the server's decode): a request whose innermost expression is
        // PROTOBUF_RECURSION_LIMIT levels down decodes, one more level does not.
        use crate::pb::eval::Expression;
        use prost::Message;
        let limit = PROTOBUF_RECURSION_LIMIT;
        let decode = |depth: u32| {
            let bytes = protobuf_expression(depth);
            let payload = prost::decode_length_delimiter(&bytes[..]).unwrap();
            Expression::decode(&bytes[bytes.len() - payload..]).map(|_| ())
        };
        assert!(decode(limit).is_ok());
        let e = decode(limit + 1).unwrap_err().to_string();
        assert!(e.contains("recursion limit"), "{e}");
        // The server: its evaluation stops at 64 levels, the decoder at the limit.
        let e = serve("protobuf", "eval", "none", &protobuf_expression(limit)).unwrap();
        assert!(e.contains("nested too deeply"), "{e}");
        let e = serve("protobuf", "eval", "none", &protobuf_expression(limit + 1)).unwrap();
        assert!(e.contains("recursion limit"), "{e}");
    }

    #[test]
    fn capnp_nesting_limit() {
        use crate::eval_capnp::expression;
        fn request(depth: u32, packed: bool) -> Vec<u8> {
            let mut m = capnp::message::Builder::new_default();
            let mut e = m.init_root::<expression::Builder<'_>>();
            for _ in 0..depth {
                e.reborrow().get_right().set_value(3);
                e = e.get_left().init_expression();
            }
            e.reborrow().get_left().set_value(1);
            e.get_right().set_value(2);
            let mut out = Vec::new();
            if packed {
                capnp::serialize_packed::write_message(&mut out, &m).unwrap();
            } else {
                capnp::serialize::write_message(&mut out, &m).unwrap();
            }
            out
        }
        for (packed, compression) in [(false, "none"), (true, "packed")] {
            let limit = CAPNP_NESTING_LIMIT as u32;
            assert_eq!(
                serve("capnp", "eval", compression, &request(limit - 1, packed)),
                None
            );
            let e = serve("capnp", "eval", compression, &request(limit + 1, packed)).unwrap();
            assert!(e.contains("nest"), "{e}");
        }
    }
}
