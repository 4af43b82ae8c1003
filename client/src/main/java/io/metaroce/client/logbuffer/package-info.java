/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
/**
 * Log buffers: the layout of a publication's (or image's) memory-mapped log file
 * ({@link io.metaroce.client.logbuffer.LogBufferDescriptor}), the appenders that write frames into it
 * ({@link io.metaroce.client.logbuffer.TermAppender} for concurrent publishers,
 * {@link io.metaroce.client.logbuffer.ExclusiveTermAppender} for a single writer), the reader
 * ({@link io.metaroce.client.logbuffer.TermReader}) and the handlers and flyweights a poll uses, with the assemblers
 * that hand fragmented messages over whole ({@link io.metaroce.client.logbuffer.FragmentAssembler} for polls,
 * {@link io.metaroce.client.logbuffer.ControlledFragmentAssembler} for controlled polls, where an aborted message is
 * delivered whole again).
 * <p>
 * The frame protocol, which every class here follows: a frame's length word is its commit flag. A writer reserves
 * space through the tail, writes the header with a negative length (release), fences, writes the body and then
 * release-stores the positive length; a reader acquire-loads the length and reads the frame only when it is
 * positive. Memory that no one has written reads zero, which is why consumed memory is zeroed again behind the
 * slowest consumer before publishers may reuse it. Frame fields are those of {@link io.metaroce.codec.FrameDescriptor}.
 * <p>
 * End of stream: when a network publication closes, the driver appends an empty frame with BEGIN, END and EOS
 * ({@link io.metaroce.client.logbuffer.TermAppender#appendEndOfStream}). Every reader ({@link
 * io.metaroce.client.logbuffer.TermReader} for plain polls, the controlled poll of {@code Image}) consumes it like
 * padding: the position moves past it, no handler sees it and it is not counted as a fragment, so a
 * fragment assembler never sees it either. Readers test the EOS flag only for
 * header-only data frames.
 * <p>
 * Spies: a spy that does not hold a network publication back reads its log through a
 * {@link io.metaroce.client.logbuffer.SpyTermReader}, which copies each committed frame, validates the copy against
 * the log's clean position (release-stored by the driver before it zeroes anything below it) behind an acquire
 * fence, and stops for good at the first frame the publication may have reused.
 * <p>
 * Hot-path methods allocate nothing, throw only for programming errors and return codes for everything else. Fields
 * are copied into final locals before loops: it lets the JIT keep them in registers across the memory fences.
 */
package io.metaroce.client.logbuffer;
