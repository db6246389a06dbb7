//! IPC messages as `FlightData` and back: a Flight data stream carries each
//! encapsulated message of the IPC stream format as one `FlightData`, its
//! metadata flatbuffer in `data_header` and its body in `data_body`, without
//! the stream format's continuation marker and length prefix.

use alkaid::ipc::message::MessageView;

use super::protocol::{FlightData, FlightDescriptor};

/// Splits IPC stream-format bytes into `FlightData` messages (the schema,
/// dictionary batches, record batches), stopping at the end-of-stream marker
/// or at the end of `bytes`. The bytes are copied once, into the messages.
///
/// # Errors
/// [`alkaid::Error::UnexpectedEof`] when `bytes` ends inside a message;
/// [`alkaid::Error::InvalidFlatbuffer`] (and the other errors of
/// [`MessageView::decode`]) for a malformed metadata flatbuffer.
pub(crate) fn split_messages(mut bytes: &[u8]) -> Result<Vec<FlightData>, alkaid::Error> {
    let mut out = Vec::new();
    loop {
        let Some(word) = bytes.get(..4) else {
            return Ok(out);
        };
        let mut prefix = 4usize;
        let mut len = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        if len == u32::MAX {
            let next = bytes.get(4..8).ok_or(alkaid::Error::UnexpectedEof)?;
            len = u32::from_le_bytes([next[0], next[1], next[2], next[3]]);
            prefix = 8;
        }
        if len == 0 {
            return Ok(out);
        }
        let meta_end = prefix
            .checked_add(len as usize)
            .ok_or(alkaid::Error::UnexpectedEof)?;
        let header = bytes
            .get(prefix..meta_end)
            .ok_or(alkaid::Error::UnexpectedEof)?;
        let body_len = usize::try_from(MessageView::decode(header)?.body_length)
            .map_err(|_| alkaid::Error::InvalidFlatbuffer)?;
        let end = meta_end
            .checked_add(body_len)
            .ok_or(alkaid::Error::UnexpectedEof)?;
        let body = bytes
            .get(meta_end..end)
            .ok_or(alkaid::Error::UnexpectedEof)?;
        out.push(FlightData {
            flight_descriptor: None,
            data_header: header.to_vec(),
            app_metadata: Vec::new(),
            data_body: body.to_vec(),
        });
        bytes = bytes.get(end..).unwrap_or(&[]);
    }
}

/// The IPC stream-format bytes of one `FlightData`: the continuation
/// marker, the metadata length (padded to 8 bytes), the metadata, zero
/// padding and the body, appended to `out`. A `FlightData` without a header
/// (only application metadata) adds nothing.
pub(crate) fn frame_message(data: &FlightData, out: &mut Vec<u8>) {
    if data.data_header.is_empty() {
        return;
    }
    let padded = data.data_header.len().next_multiple_of(8);
    out.extend_from_slice(&u32::MAX.to_le_bytes());
    out.extend_from_slice(&(padded as u32).to_le_bytes());
    out.extend_from_slice(&data.data_header);
    out.resize(out.len() + (padded - data.data_header.len()), 0);
    out.extend_from_slice(&data.data_body);
}

/// A descriptor naming a flight by its path segments.
pub(crate) fn path_descriptor(path: &[&str]) -> FlightDescriptor {
    FlightDescriptor {
        r#type: super::protocol::flight_descriptor::DescriptorType::Path as i32,
        cmd: Vec::new(),
        path: path.iter().map(|s| s.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use alkaid::array::{Array, Int64Array, RecordBatch, StringArray};

    use super::{frame_message, split_messages};

    #[test]
    fn messages_split_and_framed_again_read_back_equal() {
        let batch = RecordBatch::try_from_iter([
            ("v", Int64Array::from(vec![1, 2, 3]).into_array_ref()),
            (
                "s",
                StringArray::from(vec![Some("a"), None, Some("ccc")]).into_array_ref(),
            ),
        ])
        .unwrap();
        let mut w = crate::StreamWriter::try_new(Vec::new(), batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        let bytes = w.into_inner();
        let messages = split_messages(&bytes).unwrap();
        assert_eq!(messages.len(), 3);
        assert!(messages[0].data_body.is_empty());
        assert!(!messages[1].data_body.is_empty());
        let mut framed = Vec::new();
        for m in &messages {
            frame_message(m, &mut framed);
        }
        let back: Vec<_> = crate::read_stream(&framed[..])
            .unwrap()
            .collect::<crate::Result<_>>()
            .unwrap();
        assert_eq!(back, [batch.clone(), batch]);
        // A cut gives the whole messages before it, or a truncation error.
        for cut in 0..bytes.len() {
            match split_messages(&bytes[..cut]) {
                Ok(part) => assert_eq!(part[..], messages[..part.len()], "cut {cut}"),
                Err(e) => assert_eq!(e, alkaid::Error::UnexpectedEof, "cut {cut}"),
            }
        }
    }
}
