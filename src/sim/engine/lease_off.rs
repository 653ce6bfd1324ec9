//! The lease service as the first stage's build has it: none. Its `validate` refuses
//! `lock.lease`, so no such scenario reaches its engine; the type has no value, every method is
//! an empty match, and the service's code stays out of the first download.

use super::queue::{Item, Queue};
use super::world::World;
use crate::sim::scenario::{Lease, Scenario};
use crate::sim::trace::{LeaseTrace, Rejection};

pub enum LeaseService {}

impl LeaseService {
    pub fn new(_: &Scenario, _: &Lease) -> Option<LeaseService> {
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
    pub fn holds(&self, _: &World, _: u64, _: usize) -> bool {
        match *self {}
    }
    pub fn acquire(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn deadline(&mut self, _: &mut World, _: u64, _: usize, _: u64) {
        match *self {}
    }
    pub fn renew(&mut self, _: &mut World, _: u64, _: usize, _: Option<usize>) -> bool {
        match *self {}
    }
    pub fn tick(&mut self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn release(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn crashed(&mut self, _: u64, _: usize) {
        match *self {}
    }
    pub fn failover(&mut self, _: &mut World, _: u64) {
        match *self {}
    }
    pub fn write_arrives(&self, _: &World, _: u64, _: usize) -> Option<Rejection> {
        match *self {}
    }
    pub fn ran(&mut self, _: &World, _: usize, _: bool) {
        match *self {}
    }
    pub fn settings(&self) -> LeaseTrace {
        match *self {}
    }
    pub fn finish(self, _: u64) -> LeaseTrace {
        match self {}
    }
}
