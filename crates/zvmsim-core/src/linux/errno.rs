//! The errno values Linux's system calls return to the commands zvmsim answers for, and
//! strerror's text for each (glibc's), as the tools print it.

pub const EPERM: i32 = 1;
pub const ENOENT: i32 = 2;
pub const EIO: i32 = 5;
pub const ENOMEM: i32 = 12;
pub const EBUSY: i32 = 16;
pub const EEXIST: i32 = 17;
pub const ENODEV: i32 = 19;
pub const EINVAL: i32 = 22;
pub const ENOSPC: i32 = 28;
pub const EROFS: i32 = 30;
pub const ERANGE: i32 = 34;
pub const ENAMETOOLONG: i32 = 36;
pub const EOPNOTSUPP: i32 = 95;

/// strerror's text for `e`.
pub fn strerror(e: i32) -> &'static str {
    match e {
        EPERM => "Operation not permitted",
        ENOENT => "No such file or directory",
        EIO => "Input/output error",
        ENOMEM => "Cannot allocate memory",
        EBUSY => "Device or resource busy",
        EEXIST => "File exists",
        ENODEV => "No such device",
        EINVAL => "Invalid argument",
        ENOSPC => "No space left on device",
        EROFS => "Read-only file system",
        ERANGE => "Numerical result out of range",
        ENAMETOOLONG => "File name too long",
        EOPNOTSUPP => "Operation not supported",
        _ => "Unknown error",
    }
}
