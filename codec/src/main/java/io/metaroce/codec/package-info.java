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
 * Hand-written companions of the generated codecs.
 * <p>
 * The codecs themselves are generated at build time by SBE from the schemas in the {@code sbe-schemas} module:
 * {@code io.metaroce.codec.wire} for the MetaRoCE wire protocol and {@code io.metaroce.codec.control} for the
 * client/driver control protocol. Nothing generated is committed.
 * <p>
 * This package adds the validating readers that stand between untrusted bytes and those codecs:
 * {@link io.metaroce.codec.WireDatagramReader} for datagrams received from the network and
 * {@link io.metaroce.codec.ControlMessageReader} for records read from the client/driver rings. A reader checks a
 * message's structure against the length it was given (not against the capacity of the buffer around it), never
 * throws, allocates nothing, and answers every rejection with a reason from {@link io.metaroce.codec.RejectReason}.
 * A message it accepts can be decoded completely with the generated decoders without reading outside the message.
 */
package io.metaroce.codec;
