//! The guard's side: take a request, start its command, end its tree, answer.

use super::spawn::{Prepared, fork_command};
use super::{MAX_REQUEST, Reply};
use crate::proc::supervise::{self, STOP};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendFlags};
use rustix::process::Pid;
use std::ffi::{CString, OsString};
use std::io::{self, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;

/// The guard's life: takes requests on stdin until vermas (`vermas`, its parent) closes it,
/// runs each, and answers; the exit code.
pub(super) fn serve(vermas: i32) -> i32 {
    use rustix::process::{getpid, getppid, set_child_subreaper, set_parent_process_death_signal};
    let set = supervise::watched();
    // SAFETY: `set` is an initialised signal set; blocking signals is sound at any point.
    unsafe { libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    // Both fail only on an invalid argument; the getppid check covers the race.
    let _ = set_child_subreaper(Some(getpid()));
    let _ = set_parent_process_death_signal(Some(STOP));
    if Pid::as_raw(getppid()) != vermas {
        return 126;
    }
    let _ = rustix::thread::set_name(c"vermas-guard");
    let socket = std::io::stdin();
    let mut buf = vec![0u8; MAX_REQUEST];
    let base: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    loop {
        let Some((request, fds)) = receive_request(socket.as_fd(), &mut buf) else {
            return 0;
        };
        supervise::drain(&set);
        let reply = run_one(&request, fds, &base, vermas, &set, socket.as_fd());
        if send_reply(socket.as_fd(), reply).is_err() {
            return 0;
        }
    }
}

/// Reads the next request and its descriptors; `None` when vermas let go.
fn receive_request(socket: BorrowedFd<'_>, buf: &mut [u8]) -> Option<(Vec<u8>, Vec<OwnedFd>)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    loop {
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let got = match rustix::net::recvmsg(
            socket,
            &mut [IoSliceMut::new(buf)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Ok(r) => r,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        };
        if got.bytes == 0 {
            return None;
        }
        let mut fds = Vec::new();
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(rights) = message {
                fds.extend(rights);
            }
        }
        return Some((buf[..got.bytes.min(buf.len())].to_vec(), fds));
    }
}

/// Sends one reply.
fn send_reply(socket: BorrowedFd<'_>, reply: Reply) -> io::Result<()> {
    rustix::net::send(socket, &reply.encode(), SendFlags::NOSIGNAL)?;
    Ok(())
}

/// Takes a request apart; `None` when it is malformed.
fn prepare(request: &[u8], base: &[(OsString, OsString)]) -> Option<Prepared> {
    let mut program = None;
    let mut argv = vec![CString::default()];
    let mut dir = None;
    let mut env = base.to_vec();
    let mut path = None;
    for item in request.split(|b| *b == 0).filter(|i| !i.is_empty()) {
        let (tag, body) = (item[0], &item[1..]);
        let text = CString::new(body).ok()?;
        match tag {
            b'p' => program = Some(text),
            b'0' => argv[0] = text,
            b'a' => argv.push(text),
            b'd' => dir = Some(text),
            b'e' => {
                let eq = body.iter().position(|b| *b == b'=')?;
                let (k, v) = (&body[..eq], &body[eq + 1..]);
                if k == b"PATH" {
                    path = CString::new(v).ok();
                }
                // Every request carries its (safe) PATH; it matters to the spawn only when
                // the program is a name to look up (see `start_command`).
                let k = OsString::from_vec(k.to_vec());
                let v = OsString::from_vec(v.to_vec());
                match env.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = v,
                    None => env.push((k, v)),
                }
            }
            _ => return None,
        }
    }
    let envp = env
        .into_iter()
        .filter_map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            CString::new(kv).ok()
        })
        .collect();
    let program = program?;
    // An absolute program needs no lookup: the fast spawn takes it, whatever the PATH.
    let path = path.filter(|_| !program.as_bytes().contains(&b'/'));
    Some(Prepared {
        program,
        argv,
        dir: dir?,
        envp,
        path,
    })
}

/// Runs one request to the end of its tree; the reply for vermas (the `Started` one is
/// sent from here, on `socket`, as soon as the command runs).
fn run_one(
    request: &[u8],
    fds: Vec<OwnedFd>,
    base: &[(OsString, OsString)],
    vermas: i32,
    set: &libc::sigset_t,
    socket: BorrowedFd<'_>,
) -> Reply {
    let (Some(prepared), Some(out)) = (prepare(request, base), fds.first()) else {
        return Reply::Failed(libc::EINVAL);
    };
    let stdin = fds.get(1);
    let (command, mut errors) = match start_command(&prepared, out, stdin, set) {
        Ok(started) => started,
        Err(e) => return Reply::Failed(e.raw_os_error().unwrap_or(libc::EIO)),
    };
    // The descriptors now live in the command only.
    drop(fds);
    // Make sure the group exists before it is signalled (the command may have made it).
    let _ = rustix::process::setpgid(Some(command), Some(command));
    // Answered at once, not after the exec: vermas goes on while the command starts.
    let status = if send_reply(socket, Reply::Started(command.as_raw_nonzero().get())).is_err() {
        // vermas is gone: end the tree, then the next read ends the guard.
        supervise::end_tree(command, None)
    } else {
        supervise::supervise(command, vermas, set)
    };
    // The command is gone, so the pipe is closed: it holds an errno only if exec failed.
    let mut errno = [0u8; 4];
    if let Some(errors) = errors.as_mut()
        && std::io::Read::read_exact(errors, &mut errno).is_ok()
    {
        return Reply::Failed(i32::from_le_bytes(errno));
    }
    Reply::Done(status)
}

/// Starts the command: an absolute program by a clone that shares the guard's memory until
/// its `exec` ([`super::spawn::clone_command`]), a name to look up through `posix_spawnp`
/// where it can (no PATH of the request's own to look the program up on), else (or for a
/// script without a `#!` line) by a fork; with the fork, the pipe its `exec` error would
/// come back on.
fn start_command(
    p: &Prepared,
    out: &OwnedFd,
    stdin: Option<&OwnedFd>,
    set: &libc::sigset_t,
) -> io::Result<(Pid, Option<std::io::PipeReader>)> {
    if p.program.as_bytes().first() == Some(&b'/') {
        match super::spawn::clone_command(p, out, stdin) {
            Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => {}
            started => return started.map(|pid| (pid, None)),
        }
    }
    #[cfg(target_env = "gnu")]
    if p.path.is_none() && p.program.as_bytes().first() != Some(&b'/') {
        match super::spawn::spawn_command(p, out, stdin) {
            Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => {}
            started => return started.map(|pid| (pid, None)),
        }
    }
    let (errors, error_writer) = std::io::pipe()?;
    let pid = fork_command(p, out, stdin, &error_writer, set)?;
    Ok((pid, Some(errors)))
}

#[cfg(test)]
mod tests {
    use super::super::Request;
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn replies_and_requests_survive_their_encoding() {
        for r in [
            Reply::Started(4242),
            Reply::Failed(libc::ENOENT),
            Reply::Done(Some(256)),
            Reply::Done(None),
        ] {
            assert_eq!(Reply::decode(&r.encode()), Some(r));
        }
        let env = [(OsString::from("A"), OsString::from("1=2"))];
        let args = ["-c".to_string(), "echo hi".to_string()];
        let request = Request {
            program: OsStr::new("/bin/sh"),
            arg0: OsStr::new("sh"),
            args: &args,
            dir: std::path::Path::new("/tmp"),
            env: &env,
        };
        let p = prepare(&request.encode(), &[]).expect("well formed");
        assert_eq!(p.program.as_bytes(), b"/bin/sh");
        let argv: Vec<&[u8]> = p.argv.iter().map(|a| a.as_bytes()).collect();
        assert_eq!(argv, [&b"sh"[..], b"-c", b"echo hi"]);
        assert_eq!(p.dir.as_bytes(), b"/tmp");
        assert!(p.envp.iter().any(|e| e.as_bytes() == b"A=1=2"));
        assert!(prepare(b"qbad\0", &[]).is_none(), "an unknown item");
    }
}
