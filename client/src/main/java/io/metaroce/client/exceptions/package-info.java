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
 * Exceptions raised to users of the client and the driver. Every one extends
 * {@link io.metaroce.client.exceptions.MetaRoceException}; a refused command is a
 * {@link io.metaroce.client.exceptions.RegistrationException} carrying the driver's typed
 * {@link io.metaroce.codec.control.ControlErrorCode}. None is thrown on the data path: offers and polls report by
 * return code.
 */
package io.metaroce.client.exceptions;
