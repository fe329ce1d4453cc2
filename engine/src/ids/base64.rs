//! The standard base64 alphabet without padding, as GNU Backgammon's IDs use it.
//! Ten lines of code are not worth a dependency, and the IDs need exact control of
//! the padding bits anyway.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Value of one base64 character, or `None` outside the alphabet.
pub fn decode_char(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Encodes `bytes` as unpadded base64.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for k in 0..chars {
            let idx = (n >> (18 - 6 * k)) & 63;
            out.push(ALPHABET[idx as usize] as char);
        }
    }
    out
}

/// Decodes unpadded base64 into exactly `N` bytes. Returns the position of the first
/// bad character on error, or `None` as position when the length is wrong.
/// Bits beyond the `N` bytes must be zero.
pub fn decode<const N: usize>(text: &str) -> Result<[u8; N], DecodeError> {
    let want = (N * 8).div_ceil(6);
    let bytes = text.as_bytes();
    if bytes.len() != want {
        return Err(DecodeError::Length {
            got: bytes.len(),
            want,
        });
    }
    let mut out = [0u8; N];
    let mut acc: u32 = 0;
    let mut nbits = 0;
    let mut k = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let v = decode_char(c).ok_or(DecodeError::Char {
            index: i,
            ch: c as char,
        })?;
        acc = (acc << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            if k < N {
                out[k] = (acc >> nbits) as u8;
                k += 1;
            }
            acc &= (1 << nbits) - 1;
        }
    }
    if acc != 0 {
        return Err(DecodeError::Padding);
    }
    Ok(out)
}

/// Why a base64 string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Wrong number of characters.
    Length { got: usize, want: usize },
    /// A character outside `A-Z a-z 0-9 + /`.
    Char { index: usize, ch: char },
    /// The unused low bits of the last character are not zero.
    Padding,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Length { got, want } => {
                write!(f, "has {got} characters, expected {want}")
            }
            DecodeError::Char { index, ch } => write!(
                f,
                "character {} ({ch:?}) is not in the base64 alphabet A-Z a-z 0-9 + /",
                index + 1
            ),
            DecodeError::Padding => f.write_str("its last character has non-zero padding bits"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_10_and_9_bytes() {
        let ten = [0xb0u8, 0x67, 0xf0, 0x01, 0x30, 0xe0, 0x73, 0xf0, 0x01, 0x30];
        assert_eq!(encode(&ten), "sGfwATDgc/ABMA");
        assert_eq!(decode::<10>("sGfwATDgc/ABMA").unwrap(), ten);
        let nine = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(decode::<9>(&encode(&nine)).unwrap(), nine);
        assert_eq!(encode(&nine).len(), 12);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            decode::<10>("sGfwATDgc/ABM"),
            Err(DecodeError::Length { .. })
        ));
        assert!(matches!(
            decode::<10>("sGfwATDgc/AB!A"),
            Err(DecodeError::Char { index: 12, ch: '!' })
        ));
        assert_eq!(decode::<10>("sGfwATDgc/ABMB"), Err(DecodeError::Padding));
    }
}
