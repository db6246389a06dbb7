//! IPC writers: [`StreamWriter`] and [`FileWriter`] over `embedded_io::Write`.

mod body;
