//! The advisory-lock service as the first stage's build has it: none. Its `validate` refuses
//! `lock.advisory`, so no such scenario reaches its engine; the type has no value, every
//! method is an empty match, and the service's code stays out of the first download.

use super::queue::{Item, Queue};
use super::world::World;
use crate::sim::scenario::{Advisory, PauseCause, Scenario};
use crate::sim::trace::{AdvisoryTrace, Rejection};

pub enum AdvisoryService {}

impl AdvisoryService {
    pub fn new(_: &Scenario, _: &Advisory) -> Option<AdvisoryService> {
        None
    }
    pub fn schedule(&self, _: &mut Queue, _: &Scenario) {
        match *self {}
    }
    pub fn is_waiting(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn block(&mut self, _: usize, _: Item) {
        match *self {}
    }
    pub fn holds(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn acquire(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn release(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn expire(&mut self, _: &mut World, _: u64, _: usize, _: u64, _: i64) {
        match *self {}
    }
    pub fn paused(&mut self, _: &mut World, _: u64, _: usize, _: PauseCause, _: u64) {
        match *self {}
    }
    pub fn crashed(&mut self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn failover(&mut self, _: &mut World, _: u64) {
        match *self {}
    }
    pub fn write_arrives(&mut self, _: &mut World, _: u64, _: u64) -> Option<Rejection> {
        match *self {}
    }
    pub fn settings(&self) -> AdvisoryTrace {
        match *self {}
    }
    pub fn finish(self, _: u64) -> AdvisoryTrace {
        match self {}
    }
}
