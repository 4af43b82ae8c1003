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
 * The command-and-control file {@code cnc.dat}: its layout ({@link io.metaroce.client.cnc.CncFileDescriptor}) and
 * its mapping ({@link io.metaroce.client.cnc.CncFile}). The driver creates the file and publishes it by writing its
 * version last; clients and tools map it and find in it the to-driver command ring, the to-clients event broadcast,
 * the counters and the distinct error log, each an Agrona structure with its own concurrency contract.
 */
package io.metaroce.client.cnc;
