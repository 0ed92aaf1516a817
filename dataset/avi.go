package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"

	"github.com/goodput-dev/goodput/loadgen"
)

// Synthetic video is a Motion-JPEG AVI: a RIFF file whose frames are
// JPEG images (image/jpeg), so that no encoder beyond the standard
// library's is needed. Servers decode it with FFmpeg or OpenCV as any
// other AVI; its layout:
//
//	RIFF 'AVI ' LIST 'hdrl' (avih, LIST 'strl' (strh 'vids' 'MJPG', strf BITMAPINFOHEADER))
//	            LIST 'movi' ('00dc' JPEG)…
//	            idx1 (one key-frame entry per frame, offsets from 'movi')

// SyntheticVideo encodes seconds of width × height video at fps frames a
// second as a Motion-JPEG AVI whose frames are a function of seed: a
// gradient drifting from frame to frame under noise.
func SyntheticVideo(seconds float64, fps, width, height int, seed uint64) (loadgen.Media, error) {
	frames := int(seconds*float64(fps) + 0.5)
	if !(seconds > 0) || fps < 1 || fps > 120 || width < 16 || height < 16 || width > 3840 || height > 2160 || frames < 1 || frames > 3600 {
		return loadgen.Media{}, fmt.Errorf("video %gs at %d fps, %d×%d: want 1 to 3600 frames, 1 to 120 fps, 16×16 to 3840×2160 pixels", seconds, fps, width, height)
	}
	img := image.NewYCbCr(image.Rect(0, 0, width, height), image.YCbCrSubsampleRatio420)
	var jpegs [][]byte
	maxFrame := 0
	x := seed
	for f := range frames {
		shift := f * 4
		for py := range height {
			for px := range width {
				x = splitmix64(x + uint64(py*width+px))
				img.Y[py*img.YStride+px] = uint8((px+shift)*255/width) ^ uint8(x)&0x1f
			}
		}
		for py := range (height + 1) / 2 {
			for px := range (width + 1) / 2 {
				img.Cb[py*img.CStride+px] = uint8(seed) + uint8(py*2*255/height)
				img.Cr[py*img.CStride+px] = uint8(seed>>8) + uint8(f*8)
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
			return loadgen.Media{}, fmt.Errorf("video frame %d: %w", f, err)
		}
		b := buf.Bytes()
		jpegs = append(jpegs, b)
		maxFrame = max(maxFrame, len(b))
	}
	return loadgen.Media{Kind: "video", MIME: "video/x-msvideo", Data: writeAVI(jpegs, fps, width, height, maxFrame),
		Frames: frames, Seconds: float64(frames) / float64(fps)}, nil
}

// writeAVI lays out the AVI of the JPEG frames.
func writeAVI(frames [][]byte, fps, width, height, maxFrame int) []byte {
	le := binary.LittleEndian
	var movi []byte
	idx := make([]byte, 0, 16*len(frames))
	for _, f := range frames {
		idx = append(idx, "00dc"...)
		idx = le.AppendUint32(idx, 0x10)                // AVIIF_KEYFRAME
		idx = le.AppendUint32(idx, uint32(4+len(movi))) // from the 'movi' fourcc
		idx = le.AppendUint32(idx, uint32(len(f)))
		movi = append(movi, "00dc"...)
		movi = le.AppendUint32(movi, uint32(len(f)))
		movi = append(movi, f...)
		if len(f)%2 == 1 {
			movi = append(movi, 0)
		}
	}
	u32 := func(b []byte, vs ...uint32) []byte {
		for _, v := range vs {
			b = le.AppendUint32(b, v)
		}
		return b
	}
	n, w, h := uint32(len(frames)), uint32(width), uint32(height)
	avih := u32(nil, uint32(1000000/fps), uint32(maxFrame*fps), 0, 0x10, n, 0, 1, uint32(maxFrame), w, h, 0, 0, 0, 0)
	strh := append([]byte("vidsMJPG"), u32(nil, 0, 0, 0, 1, uint32(fps), 0, n, uint32(maxFrame), 0xffffffff, 0)...)
	strh = le.AppendUint16(le.AppendUint16(le.AppendUint16(le.AppendUint16(strh, 0), 0), uint16(width)), uint16(height))
	strf := u32(nil, 40, w, h)
	strf = le.AppendUint16(le.AppendUint16(strf, 1), 24)
	strf = append(strf, "MJPG"...)
	strf = u32(strf, w*h*3, 0, 0, 0, 0)

	chunk := func(b []byte, id string, body []byte) []byte {
		b = append(b, id...)
		b = le.AppendUint32(b, uint32(len(body)))
		return append(b, body...)
	}
	list := func(b []byte, typ string, body []byte) []byte {
		return chunk(b, "LIST", append([]byte(typ), body...))
	}
	strl := chunk(chunk(nil, "strh", strh), "strf", strf)
	hdrl := list(chunk(nil, "avih", avih), "strl", strl)
	body := list(list([]byte("AVI "), "hdrl", hdrl), "movi", movi)
	body = chunk(body, "idx1", idx)
	return chunk(nil, "RIFF", body)
}

// aviFrames reads an AVI file's frame count and length from its headers:
// the first stream header's length and rate (strh), else the main
// header's frame count and frame time (avih); 0, 0 when it cannot.
func aviFrames(b []byte) (int, float64) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "AVI " {
		return 0, 0
	}
	le := binary.LittleEndian
	head := b[:min(len(b), 8192)]
	if i := bytes.Index(head, []byte("strh")); i >= 0 && i+8+56 <= len(b) && string(b[i+8:i+12]) == "vids" {
		h := b[i+8:]
		scale, rate, n := le.Uint32(h[20:]), le.Uint32(h[24:]), le.Uint32(h[32:])
		if scale > 0 && rate > 0 {
			return int(n), float64(n) * float64(scale) / float64(rate)
		}
	}
	i := bytes.Index(head, []byte("avih"))
	if i < 0 || i+8+56 > len(b) {
		return 0, 0
	}
	h := b[i+8:]
	usPerFrame, n := le.Uint32(h[0:]), le.Uint32(h[16:])
	return int(n), float64(n) * float64(usPerFrame) / 1e6
}
