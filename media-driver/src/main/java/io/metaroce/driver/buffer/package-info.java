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
 * Files the driver creates: owner-only, or open to one group as well ({@link io.metaroce.driver.buffer.FileAccess}),
 * checked against the usable space of their file system before they exist
 * ({@link io.metaroce.driver.buffer.StorageAllocator}), and the publication log buffers laid out as
 * {@link io.metaroce.client.logbuffer.LogBufferDescriptor} describes ({@link io.metaroce.driver.buffer.LogFactory},
 * {@link io.metaroce.driver.buffer.RawLog}). Used by the conductor only.
 */
package io.metaroce.driver.buffer;
