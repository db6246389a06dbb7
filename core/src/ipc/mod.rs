//! Arrow IPC: the encapsulated message format, the stream and file formats
//! ("Serialization and Interprocess Communication" of the columnar format).

pub mod flatbuf;
